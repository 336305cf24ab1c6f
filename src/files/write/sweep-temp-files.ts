import { constants, type Stats } from "node:fs";
import { lstat, open, opendir, realpath, rmdir, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { isLockFileName, lockTimings, ownerGone } from "./file-lock.js";
import { isTempFileName, tempFileOwner, tempStaleMs } from "./temp-files.js";
import { isWriterGone } from "./writer-identity.js";

/** StaleTempReport is what removeStaleTempFiles did, for the start-up log. */
export interface StaleTempReport {
  /** Absolute paths of the temporary files, links and staging folders removed. */
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
 * removeStaleTempFiles walks every writable root and deletes what crashed writers left behind
 * under a temporary-file name (temp-files.ts): temporary files, lock files, copied links not yet
 * placed, and staging folders (a recursive copy builds its tree in one) with everything in them.
 * Never one a live writer holds: an entry goes only when its writer is a process of our namespace
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
      // A folder under a temporary-file name is a copy's staging folder: a candidate, never walked as the tree's own.
      if (isDirectory && !isTempFileName(entry.name)) subdirectories.push(entry.name);
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
    await removeIfStale(sweep, base, real, name, depth);
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
 * hold it: a temporary or lock file, a temporary link (a copied link, unlinked as a name), or a
 * staging folder with what is in it. Anything else under such a name (a FIFO, a device) is left.
 */
async function removeIfStale(sweep: Sweep, base: string, real: string, name: string, depth: number): Promise<void> {
  const file = path.join(base, name);
  try {
    const stats = await lstat(file);
    const lock = isLockFileName(name);
    if (lock ? !stats.isFile() : !stats.isFile() && !stats.isSymbolicLink() && !stats.isDirectory()) return;
    if (!(await isStale(sweep, file, name, stats, lock))) return;
    if (stats.isDirectory()) {
      if (depth + 1 > sweep.maxDepth) {
        sweep.report.failures.push({ path: path.join(real, name), code: "TOO_DEEP" });
        return;
      }
      if (!(await removeStagingFolder(sweep, base, name, path.join(real, name), depth + 1))) return;
    } else {
      await unlink(file);
    }
    sweep.report.removed.push(path.join(real, name));
  } catch (err) {
    noteFailure(sweep.report, path.join(real, name), err);
  }
}

/**
 * isStale tells whether a candidate's writer is known to be gone (a lock file's owner, or the
 * writer its temporary name names, of our pid namespace and exited), or whether it is older than
 * the sweep's bound (a lock file's own, shorter, bound).
 */
async function isStale(sweep: Sweep, file: string, name: string, stats: Stats, lock: boolean): Promise<boolean> {
  const owner = tempFileOwner(name);
  const gone = lock ? await ownerGone(file) : owner !== undefined && isWriterGone(owner.identity, owner.pid);
  return gone || Date.now() - stats.mtimeMs > (lock ? Math.min(sweep.staleMs, lockTimings.staleMs) : sweep.staleMs);
}

/**
 * removeStagingFolder removes the folder `name` of the held directory `base` (real path `real`,
 * `depth` levels below its root) with everything in it: it is opened O_DIRECTORY|O_NOFOLLOW
 * relative to `base` and kept only if the kernel reports it at `real` (a link or another folder
 * swapped in is not entered), its entries are unlinked relative to its own descriptor (a link or
 * a hard link loses only its name here, a FIFO or device is never opened), its sub-folders
 * removed the same way down to maxDepth, and then it is removed as an empty folder of `base`.
 * True when it is gone; otherwise the failures are in the report and what is left keeps its
 * temporary name, for the next sweep.
 */
async function removeStagingFolder(sweep: Sweep, base: string, name: string, real: string, depth: number): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path.join(base, name), directoryFlags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ELOOP" && code !== "ENOTDIR") noteFailure(sweep.report, real, err); // a swapped-in link: not ours
    return false;
  }
  let emptied = true;
  try {
    const actual = await handleRealPath(handle.fd);
    if (actual !== undefined && actual !== real) return false; // moved or swapped since it was listed
    // A copy with keep_mode gives its folders their modes (0500, say): ours to empty all the same.
    const mode = (await handle.stat()).mode & 0o7777;
    if ((mode & 0o700) !== 0o700) await handle.chmod(mode | 0o700).catch(() => undefined);
    const held = actual === undefined ? real : procFdPath(handle.fd);
    const names: string[] = [];
    for await (const entry of await opendir(held)) names.push(entry.name);
    for (const child of names) {
      const at = path.join(held, child);
      const childReal = path.join(real, child);
      try {
        const stats = await lstat(at);
        if (!stats.isDirectory()) {
          await unlink(at);
        } else if (sweep.readOnly.has(childReal)) {
          emptied = false; // a read-only root nested here: not the sweep's to touch
        } else if (depth + 1 > sweep.maxDepth) {
          sweep.report.failures.push({ path: childReal, code: "TOO_DEEP" });
          emptied = false;
        } else {
          emptied = (await removeStagingFolder(sweep, held, child, childReal, depth + 1)) && emptied;
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") emptied = false;
        noteFailure(sweep.report, childReal, err);
      }
    }
  } catch (err) {
    noteFailure(sweep.report, real, err);
    return false;
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (!emptied) return false;
  try {
    await rmdir(path.join(base, name));
    return true;
  } catch (err) {
    noteFailure(sweep.report, real, err);
    return false;
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
