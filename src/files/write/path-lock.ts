import { AsyncLocalStorage } from "node:async_hooks";

/** Tail of each key's queue: resolves when the last holder queued so far has finished. */
const tails = new Map<string, Promise<void>>();

/** Keys the current async context already holds, so that a nested acquisition does not deadlock. */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * withPathLock runs `fn` while holding this process's lock on `key` (an absolute real path), so
 * that read-check-write sequences on one file from concurrent calls run one after another.
 *
 * Holders run in arrival order. The lock is re-entrant within one async call chain: EditFile holds
 * it across read, edit and write, and the atomic write it calls takes the same lock again. It
 * serialises within this process only; other processes are kept consistent by the atomic rename.
 */
export async function withPathLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const mine = held.getStore();
  if (mine?.has(key)) {
    return fn();
  }
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => done);
  tails.set(key, tail);
  try {
    await previous;
    return await held.run(new Set([...(mine ?? []), key]), fn);
  } finally {
    release();
    // Forget the key once nobody queued behind us, so the map does not grow with every path.
    if (tails.get(key) === tail) {
      tails.delete(key);
    }
  }
}

/** lockedPathCount tells how many paths have a holder or waiters; tests use it to prove cleanup. */
export function lockedPathCount(): number {
  return tails.size;
}
