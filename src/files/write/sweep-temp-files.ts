import { constants, type Stats } from "node:fs";
import { lstat, open, opendir, realpath, rmdir, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { isLockFileName, lockTimings, ownerGone } from "./file-lock.js";
import { identityOf, readStagingRecords, stagingJournalDir, type StagingRecord } from "./staging-journal.js";
import { isTempFileName, tempFileOwner, tempStaleMs } from "./temp-files.js";
import { isWriterGone } from "./writer-identity.js";

/** StaleTempReport is what removeStaleTempFiles did, for the start-up log. */
export interface StaleTempReport {
  /** Absolute paths of the temporary files, links and staging folders removed. */
  readonly removed: string[];
  /**
   * Folders under a temporary-file name whose writer is gone (or that are old) but which no
   * journal record names (staging-journal.ts): left alone, for the start-up log. A name alone
   * never deletes a folder: it may be a user's, or a tree copied from elsewhere.
   */
  readonly unrecorded: string[];
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
  /** The staging journal's folder; default stagingJournalDir(). Undefined there: no journal. */
  readonly journalDir?: string;
}

/**
 * sweepMaxDepth bounds the walk for temporary files, and with it the directory descriptors it
 * holds (one per level). A recorded staging folder is removed at any depth (removeStagingFolder).
 */
export const sweepMaxDepth = 128;

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

interface Sweep {
  readonly report: StaleTempReport;
  readonly readOnly: ReadonlySet<string>;
  readonly staleMs: number;
  readonly maxDepth: number;
  /** Real paths of the staging folders journal records still name (removed or kept). */
  readonly recorded: Set<string>;
}

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
 * isStale tells whether a candidate's writer is known to be gone (a lock file's owner, or the
 * writer its temporary name names, of our pid namespace and exited), or whether it is older than
 * the sweep's bound (a lock file's own, shorter, bound).
 */
async function isStale(
  sweep: Sweep,
  file: string,
  name: string,
  stats: Pick<Stats, "mtimeMs">,
  lock: boolean,
): Promise<boolean> {
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
 * removed the same way at any depth (one descriptor per level, half of what the copy that built
 * the tree held), and then it is removed as an empty folder of `base`. With `id`, the opened
 * folder must be that device and inode (the journal's record). True when it is gone; otherwise
 * the failures are in the report and what is left keeps its record, for the next sweep.
 */
async function removeStagingFolder(
  sweep: Sweep,
  base: string,
  name: string,
  real: string,
  id?: string,
): Promise<boolean> {
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
    if (id !== undefined && (await identityOf(handle.fd)) !== id) return false; // not the folder recorded
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
        } else {
          emptied = (await removeStagingFolder(sweep, held, child, childReal)) && emptied;
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

/**
 * sweepJournal removes the staging folders the journal in `dir` records, in the writable roots
 * `writable`, whose writer is gone: each only if its parent folder (opened O_DIRECTORY, checked
 * at the recorded real path) and the folder itself still have the recorded device and inode.
 * A record whose folder is gone or is another folder now is dropped; one of a live writer, or
 * of a folder outside these roots (another server's), is kept. A journal that lies in a root or
 * holds one is not trusted (a client could write it): it is reported and not read.
 */
async function sweepJournal(sweep: Sweep, writable: readonly string[], dir: string | undefined): Promise<void> {
  if (dir === undefined) return;
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined) return; // no journal yet: nothing recorded
  const all = [...writable, ...sweep.readOnly];
  if (all.some((root) => within(real, root) || within(root, real))) {
    sweep.report.failures.push({ path: dir, code: "JOURNAL_IN_ROOT" });
    return;
  }
  for (const { file, record } of await readStagingRecords(real)) {
    if (record === undefined) {
      await unlink(file).catch(() => undefined); // cut short by a crash: names nothing
      continue;
    }
    const at = path.join(record.parent, record.name);
    if (!writable.some((root) => within(record.parent, root)) || [...sweep.readOnly].some((root) => within(at, root))) {
      // Another server's (or a root no longer served): kept, unless its folder is gone with its parent.
      if ((await lstat(record.parent).catch((err: NodeJS.ErrnoException) => err.code)) === "ENOENT")
        await unlink(file).catch(() => undefined);
      continue;
    }
    if (await removeRecorded(sweep, record, at)) await unlink(file).catch(() => undefined);
    else sweep.recorded.add(at); // kept (a live copy's, or not yet removable): its record still names it
  }
}

/** removeRecorded removes one recorded staging folder if its writer is gone; true when its record is done with. */
async function removeRecorded(sweep: Sweep, record: StagingRecord, at: string): Promise<boolean> {
  let parent: FileHandle;
  try {
    parent = await open(record.parent, directoryFlags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return true; // the folder went with its parent
    noteFailure(sweep.report, record.parent, err);
    return false;
  }
  try {
    const actual = await handleRealPath(parent.fd);
    if ((actual !== undefined && actual !== record.parent) || (await identityOf(parent.fd)) !== record.parentId)
      return true; // another folder now
    const base = actual === undefined ? record.parent : procFdPath(parent.fd);
    const stats = await lstat(path.join(base, record.name), { bigint: true }).catch(() => undefined);
    if (stats === undefined || !stats.isDirectory() || `${stats.dev}:${stats.ino}` !== record.id) return true; // gone, or not the folder made
    if (!(await isStale(sweep, path.join(base, record.name), record.name, { mtimeMs: Number(stats.mtimeMs) }, false)))
      return false; // a live copy's
    if (!(await removeStagingFolder(sweep, base, record.name, at, record.id))) return false;
    sweep.report.removed.push(at);
    return true;
  } catch (err) {
    noteFailure(sweep.report, at, err);
    return false;
  } finally {
    await parent.close().catch(() => undefined);
  }
}

/** within tells whether real path `inner` is `outer` or lies below it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
