import type { Stats } from "node:fs";
import path from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { entryMountAt } from "../../sandbox/mount-point-at.js";
import type { ReadHandle, SandboxRoot } from "../../sandbox/sandbox.js";
import type { DirectoryHandle } from "./directory-descriptor.js";
import { describeFileType } from "./file-type.js";
import { nodeFsOps, type AtomicFsOps, type ContentAt } from "./fs-ops.js";
import { acquireFileLock, type FileLock } from "./file-lock.js";
import { applyOwnerAndMode } from "./owner-mode.js";
import { pinReplaced, releasePinned } from "./replaced-file-pin.js";
import { withPathLock, type HeldPathLocks } from "./path-lock.js";
import type { StagedFile } from "./staged-descriptor.js";
import type { StagedTemp } from "./staged-temp.js";
import { openTargetDirectory, type TargetDirectory } from "./target-directory.js";
import { tempFileName, tempTouchMs } from "./temp-files.js";
import { writeAll, writesInPlace, type WrittenContent } from "./write-all.js";
import { toWriteError } from "./write-error.js";

export type { WrittenContent } from "./write-all.js";

/**
 * CommitCheck runs under the path lock just before the rename; throwing cancels the write.
 * `openCurrent` opens, for reading, the very file the rename would replace (through the held
 * directory and the sandbox's content path: never following a link, a file with several hard
 * links refused unless allowed), so a guard judges that file and not whatever a path names by
 * now. The caller closes the handle. In a folder on a local filesystem the open, a small read and
 * the close are made on the calling thread, elsewhere through the thread pool.
 */
export type CommitCheck = (state: {
  readonly current: Stats | undefined;
  readonly written: WrittenContent;
  readonly openCurrent: () => Promise<ReadHandle>;
}) => void | Promise<void>;

/** AtomicWriteOptions tunes atomicWrite. */
export interface AtomicWriteOptions {
  /** The path as the client gave it: the only form error messages may show. */
  readonly displayPath: string;
  /**
   * The sandbox's roots: the directory written in must really lie in a writable one when it is
   * opened. Every write on a client's behalf passes them; only tests of the mechanics omit them.
   */
  readonly roots?: readonly SandboxRoot[] | undefined;
  /**
   * The sandbox's content path, through which `openCurrent` opens the file the rename would
   * replace. Every write on a client's behalf passes it; without it (tests of the mechanics)
   * `openCurrent` refuses.
   */
  readonly content?: ContentAt | undefined;
  /** Permission bits of a new file; default 0644 under the process umask. Ignored on overwrite. */
  readonly mode?: number | undefined;
  /** Create missing parent directories first; they are removed again if the write fails. */
  readonly createParents?: boolean | undefined;
  /** Preconditions checked against the target as it is at commit time. */
  readonly beforeCommit?: CommitCheck | undefined;
  /**
   * Take the cross-process lock on the target (file-lock.ts) from the commit check to the rename,
   * so that guarded writers on other replicas cannot both win. Ignored when `heldLock` is given.
   */
  readonly lockAcrossProcesses?: boolean | undefined;
  /** A cross-process lock on the target the caller already holds (EditFile, from its read on). */
  readonly heldLock?: FileLock | undefined;
  /**
   * The path locks the caller holds (its withPathLock's argument): when the target's is among
   * them, atomicWrite does not take it again (EditFile holds it from its read on).
   */
  readonly heldPathLocks?: HeldPathLocks | undefined;
  /**
   * The target's directory, already opened and verified by the caller, who closes it (EditFile's,
   * opened for its lock); atomicWrite opens its own when unset. Not with createParents.
   */
  readonly directory?: TargetDirectory | undefined;
  /**
   * Runs right after the rename, alongside the folder's fsync, and atomicWrite returns once both
   * are done. It must not throw (what it does is not part of the write's outcome).
   */
  readonly afterRename?: (() => Promise<void>) | undefined;
  /**
   * A temporary file already being created in `directory` (stageTempFile), used instead of
   * creating one; atomicWrite owns it from the call on (removes it on failure). Only with `directory`.
   */
  readonly staged?: StagedTemp | undefined;
  /** Aborting stops the write before the rename and cleans up. */
  readonly signal?: AbortSignal | undefined;
  /** The filesystem calls, replaceable for fault injection. */
  readonly fsOps?: AtomicFsOps | undefined;
}

/** AtomicWriteResult says what atomicWrite committed. */
export interface AtomicWriteResult extends WrittenContent {
  /** True when nothing was at the target before. */
  readonly created: boolean;
  /** stat of what the write replaced; undefined when created. */
  readonly previous: Stats | undefined;
}

/**
 * atomicWrite replaces the file at `target` (an absolute real path the sandbox resolved) with
 * `source` so that readers and crashes see the old content or the new, never a mix: write a
 * temporary file in the target's own directory, fsync it, give it the old file's mode and owner
 * (or the new-file mode), rename it over the target, fsync the directory.
 *
 * The target's directory is opened once and every step names entries relative to that
 * descriptor (see target-directory.ts), so a path component swapped for a symlink after the
 * sandbox's check can move neither the temporary file nor the rename out of the roots.
 *
 * Bytes are streamed into the temporary file before the path lock is taken, so a slow upload does
 * not hold up other writers; the lock covers check, mode and rename. With lockAcrossProcesses
 * (or a heldLock) the cross-process file lock covers them too, and is checked to be still ours
 * right before the rename. Any failure before the rename
 * removes the temporary file and the directories this call created, and leaves the target
 * untouched. Errors are never retried: after a failed fsync the kernel may have dropped the dirty
 * pages, so a second fsync proves nothing.
 */
export async function atomicWrite(
  target: string,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  options: AtomicWriteOptions,
): Promise<AtomicWriteResult> {
  const ops = options.fsOps ?? nodeFsOps;
  const borrowed = options.directory;
  const dir =
    borrowed ??
    (await openTargetDirectory(ops, path.dirname(target), options).catch((err: unknown) => {
      throw toWriteError(err, options.displayPath, "write");
    }));
  const tempName = options.staged?.name ?? tempFileName();
  const temp = dir.entry(tempName);
  const final = dir.entry(path.basename(target));
  let handle: StagedFile | undefined;
  let tempCreated = false;
  let renamed = false;
  let synced: Promise<void> | undefined;
  try {
    handle = await (options.staged?.opened ?? ops.openExclusive(temp, 0o600, dir.local));
    tempCreated = true;
    // A write made in place cannot last until the touch timer's first tick: no timer for it.
    const written = writesInPlace(source, dir.local)
      ? await writeAll(ops, handle, source, options.signal, dir.local)
      : await withTempTouched(handle, () => writeAll(ops, handle!, source, options.signal, dir.local));
    const staged = handle;
    // The fsync runs while the target is stat'ed and checked (under the locks); the rename waits
    // for both, so the temporary file is still on disk before it is renamed.
    synced = ops.fsync(staged);
    synced.catch(() => undefined); // Observed below; a failure while waiting for the lock is not unhandled.
    const check = async (current: Stats | undefined, finalLocal: boolean): Promise<void> => {
      if (current !== undefined && !current.isFile()) {
        throw new ToolhostError(
          "NOT_A_REGULAR_FILE",
          `Cannot write '${options.displayPath}': it is a ${describeFileType(current)}, not a regular file; choose a file path.`,
          { path: options.displayPath },
        );
      }
      const name = path.basename(target);
      const openCurrent = (): Promise<ReadHandle> =>
        options.content === undefined
          ? Promise.reject(new Error("atomicWrite: no content path to read the current file through"))
          : ops.openCurrent(options.content, dir.handle, name, options.displayPath, finalLocal);
      await options.beforeCommit?.({ current, written, openCurrent });
    };
    const commitStaged = async (lock: FileLock | undefined): Promise<AtomicWriteResult> => {
      // The target's own name may be a mount point (a file bind-mounted from elsewhere, NFS,
      // FUSE): then what is done to it by name (its lstat, the guard's open, the rename) goes to
      // the thread pool. Asked through the held folder (entryMountAt), under the locks, right
      // before those calls: one lookup on this thread, which also holds the file as the pin below.
      // In a folder not on a local filesystem everything stays on the thread pool anyway.
      const entry = dir.local ? entryMountAt(dir.handle.fd, path.basename(target), target) : undefined;
      const finalLocal = entry !== undefined && !entry.mountPoint;
      let pinned = entry?.held;
      try {
        const current = await ops.statTarget(final, finalLocal);
        // The temporary file gets its mode, and is closed once synced and given it, while the
        // target is checked: a check that fails removes it anyway.
        const closed = bothSettled(synced, applyOwnerAndMode(ops, staged, current, options.mode)).then(() => {
          handle = undefined;
          return ops.close(staged);
        });
        await bothSettled(closed, check(current, finalLocal));
        options.signal?.throwIfAborted();
        await lock?.assertHeld();
        // In a local folder the rename is made on this thread (a directory update in the page
        // cache; the folder's fsync, which waits for the disk, stays on the thread pool), with the
        // file it replaces held open until the folder is synced, so that freeing that file is part
        // neither of the rename nor of the journal commit the answer waits for. The pin is the
        // descriptor entryMountAt held; only without it (no addon, or the file appeared since) is
        // the name opened for it here.
        if (pinned === undefined && current !== undefined && finalLocal) pinned = pinReplaced(final);
        await renameStaged(ops, temp, final, options.displayPath, finalLocal);
        renamed = true;
        // The folder's fsync and what the caller does once the new content is in place (EditFile's
        // history line, with an fsync of its own) run together; the answer waits for both.
        await bothSettled(syncDirectoryAfterRename(ops, dir.handle, options.displayPath), options.afterRename?.());
        return { ...written, created: current === undefined, previous: current };
      } finally {
        releasePinned(pinned);
      }
    };
    return await withPathLock(
      target,
      async () => {
        if (options.heldLock !== undefined || options.lockAcrossProcesses !== true) {
          return commitStaged(options.heldLock);
        }
        // Taken only now, with the bytes staged: a slow upload holds up no other writer.
        const lock = await acquireFileLock(dir, path.basename(target), options);
        try {
          return await commitStaged(lock);
        } finally {
          await lock.release();
        }
      },
      { displayPath: options.displayPath, held: options.heldPathLocks },
    );
  } catch (err) {
    // An fsync still in flight (the write failed while waiting for the path lock) ends first.
    await synced?.catch(() => undefined);
    if (handle !== undefined) {
      await ops.close(handle).catch(() => undefined); // The write already failed; its error is the one to report.
    }
    const tempLeft = tempCreated && !renamed && !(await removeTemp(ops, temp));
    if (!renamed) {
      await dir.removeCreated();
    }
    throw withTempNote(toWriteError(err, options.displayPath, "write"), tempLeft ? tempName : undefined);
  } finally {
    if (borrowed === undefined) {
      await dir.close();
    }
  }
}

/**
 * bothSettled waits for both operations to finish, then throws the first one's error, else the
 * second's: unlike Promise.all, neither is still running on a handle the caller goes on to
 * close or a file it removes after a failure.
 */
async function bothSettled(first: Promise<unknown> | undefined, second: Promise<unknown> | undefined): Promise<void> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === "rejected") throw a.reason;
  if (b.status === "rejected") throw b.reason;
}

/**
 * withTempTouched refreshes the temporary file's mtime every tempTouchMs while `fn` runs, so that a
 * stalled upload's file does not look abandoned to another replica's start-up sweep.
 */
async function withTempTouched<T>(handle: StagedFile, fn: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    const now = new Date();
    handle.utimes(now, now).catch(() => undefined); // Closed meanwhile: the write is over anyway.
  }, tempTouchMs);
  timer.unref();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/**
 * renameStaged renames the temporary file over the target. ENOENT for a source that no longer
 * exists means another process removed our temporary file (a sweep, an operator): say so rather
 * than blame a parent directory.
 */
async function renameStaged(
  ops: AtomicFsOps,
  temp: string,
  final: string,
  displayPath: string,
  inPlace: boolean,
): Promise<void> {
  try {
    await ops.rename(temp, final, inPlace);
  } catch (err) {
    if (
      (err as NodeJS.ErrnoException).code === "ENOENT" &&
      (await ops.statTarget(temp).catch(() => undefined)) === undefined
    ) {
      throw new ToolhostError(
        "WRITE_INTERRUPTED",
        `Cannot write '${displayPath}': its temporary file was removed by another process (another replica's start-up clean-up or an operator) before the commit; nothing was changed. Retry the call.`,
        { path: displayPath },
        { cause: err },
      );
    }
    throw err;
  }
}

async function syncDirectoryAfterRename(ops: AtomicFsOps, dir: DirectoryHandle, displayPath: string): Promise<void> {
  try {
    await ops.fsyncDir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    throw new ToolhostError(
      "IO_ERROR",
      `'${displayPath}' now holds the new content, but syncing its directory failed (${code}), so the change may not survive a crash; check the disk before relying on it.`,
      { path: displayPath, errno: code, committed: "true" },
      { cause: err },
    );
  }
}

/**
 * removeTemp deletes the temporary file; false when it could not, so the error can say so.
 * ENOENT counts as removed: the name is relative to the directory the temporary file was made
 * in, so "not there" means someone removed it (a replica's start-up clean-up), not that the
 * name now leads elsewhere. (Without /proc the name is a real path and this cannot be known.)
 */
async function removeTemp(ops: AtomicFsOps, temp: string): Promise<boolean> {
  try {
    await ops.unlink(temp);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** withTempNote adds to the client's error that a temporary file remains (start-up removes it). */
function withTempNote(failure: Error, tempName: string | undefined): Error {
  if (tempName === undefined || !(failure instanceof ToolhostError)) {
    return failure;
  }
  return new ToolhostError(
    failure.reason,
    `${failure.message} The temporary file '${tempName}' could not be removed; the next server start removes it.`,
    { ...failure.metadata, tempFileLeft: tempName },
    { cause: failure.cause },
  );
}
