import { sha256Hex } from "../content-hash.js";
import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  linkSync,
  lstatSync,
  open as openCallback,
  openSync,
  renameSync,
  unlink as unlinkCallback,
  unlinkSync,
  write,
  writeSync,
  type Stats,
} from "node:fs";
import { open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { errnoCode } from "../../sandbox/fs-error.js";
import { tempFileName, tempFilePrefix } from "./temp-files.js";
import { isWriterGone, writerIdentity } from "./writer-identity.js";

/**
 * lockTimings are the cross-process lock's times (ms): a holder refreshes its lock file's mtime
 * every `refreshMs`; a lock file untouched for `staleMs` belongs to a crashed holder and is taken
 * over (at once when its holder shares our pid namespace and has exited); a waiter gives up after
 * `waitMs` with FILE_LOCKED. Documented in docs/deployment.md.
 */
export const lockTimings = { refreshMs: 2_000, staleMs: 15_000, waitMs: 10_000 } as const;

const lockPrefix = `${tempFilePrefix}lock-`;

/** lockFileName is the lock file guarding `targetName` in the same directory: reserved, fixed length. */
export function lockFileName(targetName: string): string {
  return lockPrefix + sha256Hex(targetName).slice(0, 32);
}

/** isLockFileName tells whether a directory entry is one of our lock files. */
export function isLockFileName(name: string): boolean {
  return /^\.toolhost-tmp-lock-[0-9a-f]{32}$/.test(name);
}

/** LockDirectory is the verified directory the lock file lives in (see target-directory.ts). */
export interface LockDirectory {
  entry(name: string): string;
  /**
   * True when the directory is on a local filesystem (TargetDirectory.local, or the change
   * history's log folder): the lock file is then created, written and removed on the calling
   * thread (see tryCreate). Otherwise through the thread pool.
   */
  readonly local?: boolean;
}

/** FileLock is a held cross-process lock on one file. */
export interface FileLock {
  /** assertHeld throws FILE_LOCKED when the lock was taken over (its holder stalled past staleMs). */
  assertHeld(): Promise<void>;
  /** release removes the lock file if it is still ours; never throws. */
  release(): Promise<void>;
}

/** FileLockOptions tunes acquireFileLock. */
export interface FileLockOptions {
  readonly displayPath: string;
  readonly waitMs?: number | undefined;
  readonly staleMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Called once when the lock has been held by another holder for onWaitAfterMs while this call
   * waits for it (not when a stale lock is taken over at once): a caller whose answer need not
   * wait for the lock (the change history's line) lets it go on without.
   */
  readonly onWait?: (() => void) | undefined;
  /** How long the wait lasts before onWait is called (default 0: at the first wait). */
  readonly onWaitAfterMs?: number | undefined;
}

const createFlags = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const writeAsync = promisify(write);
const openAsync = promisify(openCallback);
const unlinkAsync = promisify(unlinkCallback);
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * acquireFileLock takes the lock on `targetName` that every replica on this filesystem honours:
 * an exclusively created lock file beside the target, made and removed only through the verified
 * directory `dir` (/proc/self/fd/N/name), carrying its owner (writer identity and pid).
 *
 * Why hand-written: Node has no flock/fcntl, and proper-lockfile (mkdir + mtime) takes a path it
 * resolves by name and, when two waiters judge a lock stale at once, the second removes the fresh
 * lock the first just made. Here O_CREAT|O_EXCL (atomic on local filesystems and NFSv3+) creates
 * the lock; a stale one is taken over by renaming it aside to a temporary name and checking that
 * what moved is the very file judged stale (same inode and mtime), putting it back with link(2),
 * which never replaces, when it was not. A holder stalled past staleMs may still lose its lock;
 * assertHeld, called right before the rename, then fails its write rather than racing.
 */
export async function acquireFileLock(
  dir: LockDirectory,
  targetName: string,
  options: FileLockOptions,
): Promise<FileLock> {
  const lockPath = dir.entry(lockFileName(targetName));
  const waitMs = options.waitMs ?? lockTimings.waitMs;
  const staleMs = options.staleMs ?? lockTimings.staleMs;
  const started = Date.now();
  const deadline = started + waitMs;
  let waiting = false;
  for (let attempt = 0; ; attempt++) {
    const held = await tryCreate(lockPath, staleMs, options.displayPath, dir.local === true);
    if (held !== undefined) {
      return held;
    }
    if (await breakIfStale(dir, lockPath, staleMs)) {
      continue;
    }
    if (Date.now() >= deadline) {
      throw new ToolhostError(
        "FILE_LOCKED",
        `Cannot change '${options.displayPath}': another writer (possibly another replica) held its lock for over ${waitMs} ms; nothing was changed. Retry the call.`,
        { path: options.displayPath, waitMs: String(waitMs) },
      );
    }
    options.signal?.throwIfAborted();
    if (!waiting && Date.now() - started >= (options.onWaitAfterMs ?? 0)) {
      waiting = true;
      options.onWait?.();
    }
    await sleep(Math.min(4 * 2 ** Math.min(attempt, 5), 100) * (0.5 + Math.random()));
  }
}

/**
 * tryCreate makes the lock file; undefined when one exists already.
 *
 * The lock's own metadata calls (the exclusive create, its fstat, the lstat that checks it is
 * still ours, the unlink and close that release it, the mtime refresh) are synchronous, on the
 * event loop: each is answered from the kernel's dentry and inode caches in a few microseconds,
 * where a thread-pool round trip costs 14-22 us of main-thread time and a wake-up, and an edit
 * made six of them one after another (bench/README.md, mcp, "4 KB edit"). The owner's identity,
 * file content, is one write(2) of ~40 bytes into the page cache, made here too in a local folder
 * and otherwise through the pool, where nothing waits for it but the release (a lock file still
 * empty reads as "owner unknown", judged by age alone, as before it was written).
 * Unless `local`: the create (a journal transaction, 50-100 us), the owner's write and the unlink
 * then go through the thread pool, where they may wait on a server, or, for a lock taken
 * alongside the change, leave the event loop to the change itself.
 */
async function tryCreate(
  lockPath: string,
  staleMs: number,
  displayPath: string,
  local: boolean,
): Promise<FileLock | undefined> {
  let fd: number;
  try {
    fd = local ? openSync(lockPath, createFlags, 0o600) : await openAsync(lockPath, createFlags, 0o600);
  } catch (err) {
    if (errnoCode(err) === "EEXIST") return undefined;
    throw err;
  }
  let mine: Stats;
  try {
    mine = fstatSync(fd);
  } catch (err) {
    closeQuietly(fd);
    unlinkQuietly(lockPath);
    throw err;
  }
  // Awaited (never rejecting) before the descriptor is closed, so no write lands on a reused fd.
  // In a local folder it is one write(2) of ~40 bytes into the page cache, made here like the create.
  const owned = local
    ? writeOwnerNow(fd)
    : writeAsync(fd, ownerText()).then(
        () => undefined,
        () => undefined, // An owner not written leaves the lock to be judged by age, as an unreadable one is.
      );
  const refresh = setInterval(
    () => {
      const now = new Date();
      try {
        futimesSync(fd, now, now);
      } catch {
        // A missed refresh only brings staleness nearer.
      }
    },
    Math.min(lockTimings.refreshMs, staleMs / 4),
  );
  refresh.unref();
  const stillMine = (): boolean => {
    let now: Stats | undefined;
    try {
      now = lstatSync(lockPath, { throwIfNoEntry: false });
    } catch {
      now = undefined;
    }
    return now !== undefined && now.ino === mine.ino && now.dev === mine.dev;
  };
  let released = false;
  return {
    assertHeld: async () => {
      if (!stillMine()) {
        throw new ToolhostError(
          "FILE_LOCKED",
          `Cannot change '${displayPath}': this call stalled so long that another writer took over its lock; nothing was changed. Retry the call.`,
          { path: displayPath },
        );
      }
    },
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(refresh);
      // The lock is the file, not the descriptor: removed if still ours (left behind, it goes
      // stale and is taken over), and closed once its owner's write has ended.
      if (stillMine()) {
        if (local) unlinkQuietly(lockPath);
        else await unlinkAsync(lockPath).catch(() => undefined); // Left behind, a lock file goes stale and is taken over.
      }
      await owned;
      closeQuietly(fd);
    },
  };
}

/** ownerText is what a lock file holds: who made it (writer identity and pid). */
function ownerText(): string {
  return JSON.stringify({ identity: writerIdentity(), pid: process.pid });
}

/** writeOwnerNow writes the owner on this thread; a failure leaves the lock judged by age alone. */
function writeOwnerNow(fd: number): Promise<void> {
  try {
    writeSync(fd, ownerText());
  } catch {
    // An owner not written leaves the lock to be judged by age, as an unreadable one is.
  }
  return Promise.resolve();
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing is lost by a failed close of a lock file.
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Left behind, a lock file goes stale and is taken over.
  }
}

/**
 * breakIfStale removes the lock file when its holder is gone: untouched for staleMs, or its owner
 * a process of our namespace that has exited. True when the caller should try again at once.
 */
async function breakIfStale(dir: LockDirectory, lockPath: string, staleMs: number): Promise<boolean> {
  const seen = lstatSync(lockPath, { throwIfNoEntry: false });
  if (seen === undefined) return true; // Released meanwhile.
  if (Date.now() - seen.mtimeMs <= staleMs && !(await ownerGone(lockPath))) {
    return false;
  }
  // Look again, and move it aside, in one synchronous step: no other call of this process can
  // take the lock over or create a fresh one between the look and the rename (so the rename
  // never moves another waiter's fresh lock aside, leaving the name free for a third meanwhile).
  const now = lstatSync(lockPath, { throwIfNoEntry: false });
  if (now === undefined || now.ino !== seen.ino || now.dev !== seen.dev || now.mtimeMs !== seen.mtimeMs) {
    return true; // Released or taken over since: look again.
  }
  const aside = dir.entry(tempFileName());
  try {
    renameSync(lockPath, aside);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return true;
    throw err;
  }
  const moved = lstatSync(aside, { throwIfNoEntry: false });
  if (moved !== undefined && (moved.ino !== seen.ino || moved.dev !== seen.dev || moved.mtimeMs !== seen.mtimeMs)) {
    // Another process took the lock over between our look and the rename: give it back unless a
    // newer lock stands there by now (link never replaces; that holder's assertHeld then fails).
    try {
      linkSync(aside, lockPath);
    } catch {
      // A newer lock stands there.
    }
  }
  unlinkQuietly(aside);
  return true;
}

/**
 * ownerGone reads the lock's owner and tells whether that process is known to have exited. The
 * lock file is the server's own record, never a client's content, and is never sent anywhere; a
 * lock name that is not a 1-link regular file (a FIFO, or a hard link someone put there) is not
 * read at all: its owner is unknown, and only its age counts.
 */
export async function ownerGone(lockPath: string): Promise<boolean> {
  let text: string;
  try {
    const handle = await open(lockPath, readFlags);
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.nlink !== 1) return false;
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
  try {
    const owner = JSON.parse(text) as { identity?: unknown; pid?: unknown };
    return (
      typeof owner.identity === "string" && typeof owner.pid === "number" && isWriterGone(owner.identity, owner.pid)
    );
  } catch {
    return false; // Being written by its creator right now, or not ours: only age counts.
  }
}
