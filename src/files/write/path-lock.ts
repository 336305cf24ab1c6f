import { ToolhostError } from "../../errors/toolhost-error.js";

/** Tail of each key's queue: resolves when the last holder queued so far has finished. */
const tails = new Map<string, Promise<void>>();

/**
 * HeldPathLocks are the keys a withPathLock holder holds (handed to its `fn`); a nested
 * withPathLock given them (PathLockWait.held) does not wait for a key among them.
 */
export type HeldPathLocks = ReadonlySet<string>;

/**
 * pathQueueWaitMs bounds how long a call waits for its turn behind this process's other calls on
 * one file (the cross-process file lock has a bound of its own, lockTimings.waitMs).
 */
export const pathQueueWaitMs = 30_000;

/** PathLockWait says how a waiter that gives up is reported, and which locks it holds already. */
export interface PathLockWait {
  /** The path as the client gave it, for the FILE_LOCKED message. */
  readonly displayPath: string;
  /** Default pathQueueWaitMs. */
  readonly waitMs?: number | undefined;
  /** The locks the caller holds already (its own withPathLock's `fn` argument): not waited for again. */
  readonly held?: HeldPathLocks | undefined;
}

/**
 * withPathLock runs `fn` while holding this process's lock on `key` (an absolute real path), so
 * that read-check-write sequences on one file from concurrent calls run one after another.
 *
 * Holders run in arrival order. A waiter given `wait` gives up after its waitMs with FILE_LOCKED
 * (ABORTED, "retry"), and those queued behind it then wait only for the holders before it. The
 * lock is re-entrant when the holder says so: `fn` is handed the keys it holds, and a nested
 * withPathLock given them (`wait.held`) runs at once for a key among them. EditFile holds the
 * lock across read, edit and write, and hands it to the atomic write it calls, which takes the
 * same lock. It serialises within this process only; other processes are ordered by the file
 * lock (file-lock.ts).
 *
 * The held keys are passed explicitly, not through an AsyncLocalStorage: on Node 20 the first
 * AsyncLocalStorage.run installs async hooks for the life of the process, and from then on every
 * promise the server makes, in every call (reads and stats included), paid a promise hook
 * (~4% of an edit's server CPU, bench/README.md "4 KB edit, cold").
 */
export async function withPathLock<T>(
  key: string,
  fn: (held: HeldPathLocks) => Promise<T>,
  wait?: PathLockWait,
): Promise<T> {
  const mine = wait?.held;
  if (mine?.has(key)) {
    return fn(mine);
  }
  const queued = tails.get(key);
  const previous = queued ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => done);
  tails.set(key, tail);
  const forget = (): void => {
    release();
    // Forget the key once nobody queued behind us, so the map does not grow with every path.
    if (tails.get(key) === tail) {
      tails.delete(key);
    }
  };
  try {
    // With nobody before us the turn is now: no timer is armed for a wait that cannot happen
    // (every edit paid a timer and four promises for it).
    await (wait === undefined || queued === undefined ? previous : bounded(previous, wait));
  } catch (err) {
    void previous.then(forget); // Gave up: pass the turn on only once those before us are done.
    throw err;
  }
  try {
    return await fn(mine === undefined ? new Set([key]) : new Set([...mine, key]));
  } finally {
    forget();
  }
}

/** bounded resolves with `turn`, or fails with FILE_LOCKED once wait.waitMs have passed. */
async function bounded(turn: Promise<void>, wait: PathLockWait): Promise<void> {
  const waitMs = wait.waitMs ?? pathQueueWaitMs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new ToolhostError(
          "FILE_LOCKED",
          `Cannot change '${wait.displayPath}': other calls on this file kept it busy for over ${waitMs} ms; nothing was changed. Retry the call.`,
          { path: wait.displayPath, waitMs: String(waitMs) },
        ),
      );
    }, waitMs);
  });
  try {
    await Promise.race([turn, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** lockedPathCount tells how many paths have a holder or waiters; tests use it to prove cleanup. */
export function lockedPathCount(): number {
  return tails.size;
}
