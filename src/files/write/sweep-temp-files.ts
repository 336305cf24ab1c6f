import { constants } from "node:fs";
import { lstat, open, opendir, realpath, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { isLockFileName, lockTimings, ownerGone } from "./file-lock.js";
import { isTempFileName, tempFileOwner, tempStaleMs } from "./temp-files.js";
import { isWriterGone } from "./writer-identity.js";

/** StaleTempReport is what removeStaleTempFiles did, for the start-up log. */
export interface StaleTempReport {
  /** Absolute paths of the temporary files removed. */
  readonly removed: string[];
  /** Entries that could not be read or removed, with the errno code; the server starts anyway. */
  readonly failures: { readonly path: string; readonly code: string }[];
}

/** StaleTempOptions tunes removeStaleTempFiles. */
export interface StaleTempOptions {
  /**
   * Remove a temporary file untouched for this many ms whoever wrote it; default tempStaleMs.
   * Younger ones are removed only when their writer shares our pid namespace and has exited.
   */
  readonly olderThanMs?: number;
  /** Directory levels below a root the sweep descends; deeper ones are reported, not walked. */
  readonly maxDepth?: number;
}

/** sweepMaxDepth bounds the walk, and with it the directory descriptors it holds (one per level). */
export const sweepMaxDepth = 128;

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

interface Sweep {
  readonly report: StaleTempReport;
  readonly readOnly: ReadonlySet<string>;
  readonly staleMs: number;
  readonly maxDepth: number;
}

/**
 * removeStaleTempFiles walks every writable root and deletes the temporary files (and lock files)
 * that crashed writers left behind, but never one a live writer holds: a file goes only when its
 * writer is a process of our namespace that has exited, or it is untouched for `olderThanMs`
 * (writers touch theirs while they hold them, so on another host only a dead writer's file ages).
 *
 * The walk goes through verified handles only: each directory is opened O_DIRECTORY|O_NOFOLLOW
 * relative to its parent's open descriptor (/proc/self/fd/N/name), its real path is checked to
 * be where the walk expects, and files are examined and unlinked relative to that descriptor. A
 * directory swapped for a symlink is refused by the open, so nothing outside the roots is
 * touched. Read-only roots are skipped, also where one is nested inside a writable root.
 * Failures do not stop the walk; they are returned so that the caller logs them.
 */
export async function removeStaleTempFiles(
  roots: readonly { readonly path: string; readonly readOnly?: boolean }[],
  options: StaleTempOptions = {},
): Promise<StaleTempReport> {
  const sweep: Sweep = {
    report: { removed: [], failures: [] },
    readOnly: await realPaths(roots.filter((root) => root.readOnly === true)),
    staleMs: options.olderThanMs ?? tempStaleMs,
    maxDepth: options.maxDepth ?? sweepMaxDepth,
  };
  for (const root of await realPaths(roots.filter((root) => root.readOnly !== true))) {
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
  try {
    for await (const entry of await opendir(base)) {
      const known = entry.isDirectory() || entry.isFile() || entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice();
      // Some filesystems report no type (DT_UNKNOWN): ask lstat, which does not follow a link.
      const isDirectory = known ? entry.isDirectory() : await lstat(path.join(base, entry.name)).then((st) => st.isDirectory(), () => false);
      if (isDirectory) subdirectories.push(entry.name);
      else if (isTempFileName(entry.name) || isLockFileName(entry.name)) candidates.push(entry.name); // removeIfStale checks it is a file.
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

/** removeIfStale unlinks one candidate, relative to its held directory, unless a live writer may hold it. */
async function removeIfStale(sweep: Sweep, base: string, real: string, name: string): Promise<void> {
  const file = path.join(base, name);
  try {
    const stats = await lstat(file);
    if (!stats.isFile()) return;
    const lock = isLockFileName(name);
    const owner = tempFileOwner(name);
    const age = Date.now() - stats.mtimeMs;
    const gone = lock ? await ownerGone(file) : owner !== undefined && isWriterGone(owner.identity, owner.pid);
    if (!gone && age <= (lock ? Math.min(sweep.staleMs, lockTimings.staleMs) : sweep.staleMs)) return;
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

function noteFailure(report: StaleTempReport, file: string, err: unknown): void {
  const code = (err as NodeJS.ErrnoException).code ?? "UNKNOWN";
  // A file or directory that vanished during the walk needs no cleaning: not a failure.
  if (code !== "ENOENT") {
    report.failures.push({ path: file, code });
  }
}
