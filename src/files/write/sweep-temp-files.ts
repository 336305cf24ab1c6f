import { lstat, open, opendir, realpath, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { isLockFileName } from "./file-lock.js";
import { stagingJournalDir } from "./staging-journal.js";
import { sweepJournal } from "./sweep-staging-journal.js";
import { directoryFlags, isStale, noteFailure, type StaleTempReport, type Sweep } from "./sweep-state.js";
import { isTempFileName, tempStaleMs } from "./temp-files.js";

export type { StaleTempReport } from "./sweep-state.js";

/** StaleTempOptions tunes removeStaleTempFiles. */
export interface StaleTempOptions {
  /**
   * Remove a temporary file untouched for this many ms whoever wrote it; default tempStaleMs.
   * Younger ones are removed only when their writer shares our pid namespace and has exited.
   */
  readonly olderThanMs?: number;
  /** Directory levels below a root the sweep descends; deeper ones are reported, not walked. */
  readonly maxDepth?: number;
  /** The staging journal's folder; default stagingJournalDir(). Undefined there: no journal. */
  readonly journalDir?: string;
}

/**
 * sweepMaxDepth bounds the walk for temporary files, and with it the directory descriptors it
 * holds (one per level). A recorded staging folder is removed at any depth (removeStagingFolder).
 */
export const sweepMaxDepth = 128;

/**
 * removeStaleTempFiles walks every writable root and deletes what crashed writers left behind
 * under a temporary-file name (temp-files.ts): temporary files, lock files, copied links not yet
 * placed, and the staging folders (a recursive copy builds its tree in one) that the staging
 * journal records (sweepJournal), with everything in them. A folder is never removed for its name
 * alone. Never one a live writer holds: an entry goes only when its writer is a process of our namespace
 * that has exited, or it is untouched for `olderThanMs` (writers touch theirs while they hold
 * them, a copy its staging folder, so on another host only a dead writer's entry ages).
 *
 * The walk goes through verified handles only: each directory is opened O_DIRECTORY|O_NOFOLLOW
 * relative to its parent's open descriptor (/proc/self/fd/N/name), its real path is checked to
 * be where the walk expects, and files are examined and unlinked relative to that descriptor. A
 * directory swapped for a symlink is refused by the open, so nothing outside the roots is
 * touched. A staging folder is emptied the same way (removeStagingFolder): what is in it is
 * unlinked as names, links never followed, sub-folders entered only through verified descriptors,
 * as deep as maxDepth. Read-only roots are skipped, also where one is nested inside a writable root.
 * Failures do not stop the walk; they are returned so that the caller logs them.
 */
export async function removeStaleTempFiles(
  roots: readonly { readonly path: string; readonly readOnly?: boolean }[],
  options: StaleTempOptions = {},
): Promise<StaleTempReport> {
  const sweep: Sweep = {
    report: { removed: [], unrecorded: [], failures: [] },
    readOnly: await realPaths(roots.filter((root) => root.readOnly === true)),
    staleMs: options.olderThanMs ?? tempStaleMs,
    maxDepth: options.maxDepth ?? sweepMaxDepth,
    recorded: new Set(),
  };
  const writable = [...(await realPaths(roots.filter((root) => root.readOnly !== true)))].filter(
    (root) => !sweep.readOnly.has(root),
  );
  await sweepJournal(sweep, writable, "journalDir" in options ? options.journalDir : stagingJournalDir());
  for (const root of writable) {
    if (sweep.readOnly.has(root)) continue;
    let handle: FileHandle;
    try {
      handle = await open(root, directoryFlags);
    } catch (err) {
      noteFailure(sweep.report, root, err);
      continue;
    }
    try {
      const actual = await handleRealPath(handle.fd);
      if (actual === undefined || actual === root) {
        await sweepDirectory(sweep, handle, root, 0);
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
  return sweep.report;
}

/** sweepDirectory cleans one opened, verified directory, then each subdirectory opened through it. */
async function sweepDirectory(sweep: Sweep, handle: FileHandle, real: string, depth: number): Promise<void> {
  const procBase = (await handleRealPath(handle.fd)) === undefined ? undefined : procFdPath(handle.fd);
  const base = procBase ?? real; // Without /proc: by real path, as before descriptors were used.
  const subdirectories: string[] = [];
  const candidates: string[] = [];
  const unrecordedFolders: string[] = [];
  try {
    for await (const entry of await opendir(base)) {
      const known =
        entry.isDirectory() ||
        entry.isFile() ||
        entry.isSymbolicLink() ||
        entry.isFIFO() ||
        entry.isSocket() ||
        entry.isBlockDevice() ||
        entry.isCharacterDevice();
      // Some filesystems report no type (DT_UNKNOWN): ask lstat, which does not follow a link.
      const isDirectory = known
        ? entry.isDirectory()
        : await lstat(path.join(base, entry.name)).then(
            (st) => st.isDirectory(),
            () => false,
          );
      // A folder under a temporary-file name may be a live copy's staging folder: never walked, and
      // removed only through its journal record (sweepJournal); one no record names is reported.
      if (isDirectory && isTempFileName(entry.name)) unrecordedFolders.push(entry.name);
      else if (isDirectory) subdirectories.push(entry.name);
      else if (isTempFileName(entry.name) || isLockFileName(entry.name)) candidates.push(entry.name); // removeIfStale checks what it is.
    }
  } catch (err) {
    noteFailure(sweep.report, real, err);
    return;
  }
  if (candidates.length > 0 && procBase !== undefined && (await handleRealPath(handle.fd)) !== real) {
    return; // Moved since it was verified: not ours to clean any more.
  }
  for (const name of candidates) {
    await removeIfStale(sweep, base, real, name);
  }
  for (const name of unrecordedFolders) {
    const at = path.join(real, name);
    const stats = await lstat(path.join(base, name)).catch(() => undefined);
    if (
      !sweep.recorded.has(at) &&
      stats !== undefined &&
      (await isStale(sweep, path.join(base, name), name, stats, false))
    )
      sweep.report.unrecorded.push(at);
  }
  for (const name of subdirectories) {
    const childReal = path.join(real, name);
    if (sweep.readOnly.has(childReal)) continue; // A read-only root nested in a writable one.
    if (depth + 1 > sweep.maxDepth) {
      sweep.report.failures.push({ path: childReal, code: "TOO_DEEP" });
      continue;
    }
    let child: FileHandle;
    try {
      child = await open(path.join(base, name), directoryFlags);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ELOOP" && code !== "ENOTDIR") noteFailure(sweep.report, childReal, err); // A swapped-in link: skip.
      continue;
    }
    try {
      const actual = procBase === undefined ? childReal : await handleRealPath(child.fd);
      if (actual === childReal) {
        await sweepDirectory(sweep, child, childReal, depth + 1);
      }
    } finally {
      await child.close().catch(() => undefined);
    }
  }
}

/**
 * removeIfStale removes one candidate, relative to its held directory, unless a live writer may
 * hold it: a temporary or lock file, or a temporary link (a copied link, unlinked as a name).
 * Anything else under such a name (a folder, a FIFO, a device) is left.
 */
async function removeIfStale(sweep: Sweep, base: string, real: string, name: string): Promise<void> {
  const file = path.join(base, name);
  try {
    const stats = await lstat(file);
    const lock = isLockFileName(name);
    if (lock ? !stats.isFile() : !stats.isFile() && !stats.isSymbolicLink()) return;
    if (!(await isStale(sweep, file, name, stats, lock))) return;
    await unlink(file);
    sweep.report.removed.push(path.join(real, name));
  } catch (err) {
    noteFailure(sweep.report, path.join(real, name), err);
  }
}

/**
 * realPaths resolves roots to real paths, so a nested read-only root is recognised however it
 * was configured (relative, through a link). A root that cannot be resolved keeps its absolute
 * path: the walk then reports it, as before.
 */
async function realPaths(roots: readonly { readonly path: string }[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const root of roots) {
    out.add(await realpath(root.path).catch(() => path.resolve(root.path)));
  }
  return out;
}
