import type { Worker } from "node:worker_threads";
import { throwIfAborted } from "../../read/abortable.js";
import { startWorker } from "../start-worker.js";

/**
 * maxWalkers is the most walk worker threads at once, one per walking search: a search beyond it
 * waits for one to be free, so that many concurrent searches cannot start threads without bound.
 * A walk whose searcher stopped pulling (a client not reading its stream) gives its worker up to
 * a waiting search (see WalkerHolder), so paused streams never keep other searches waiting.
 */
export const maxWalkers = 16;
/** maxIdleWalkers is how many finished walk workers are kept for the next searches. */
const maxIdleWalkers = 2;

/**
 * WalkerHolder is a walk that holds a walk worker. The pool asks one that is paused (it walked as
 * far ahead as allowed and its searcher is not taking) to give its worker up when a search waits
 * for one; it does so by ending its walk where it is and calling releaseWalker, and resumes later,
 * on any worker, from the last file its searcher took (see WalkFeed).
 */
export interface WalkerHolder {
  /** When it began waiting for its searcher; undefined while it walks, or cannot give its worker up. */
  readonly pausedSince: number | undefined;
  /** giveUpWalker asks it to release its worker soon; false when it cannot (then it keeps it). */
  giveUpWalker(): boolean;
}

const idle: Worker[] = [];
const waiting: (() => void)[] = [];
/** Holders with a worker, and those of them asked to give it up. */
const holders = new Set<WalkerHolder>();
const givingUp = new Set<WalkerHolder>();
let running = 0;
let givenUp = 0;

/** walkThreads is how many walk worker threads exist: busy ones and idle ones kept. */
export function walkThreads(): number {
  return running + idle.length;
}

/** walkersGivenUp is how many times a paused walk gave its worker up to a waiting search. */
export function walkersGivenUp(): number {
  return givenUp;
}

/** WalkerPoolState is what the pool is doing: tests wait for it to settle instead of sleeping. */
export interface WalkerPoolState {
  /** Walks that hold a worker. */
  readonly holders: number;
  /** Of those, the ones paused (walked as far ahead as allowed, waiting for their searchers). */
  readonly paused: number;
  /** Searches waiting for a worker. */
  readonly waiting: number;
  /** Walks asked to give their worker up that have not yet done so. */
  readonly givingUp: number;
}

/** walkerPoolState says how many walks hold a worker, are paused or giving theirs up, and how many searches wait. */
export function walkerPoolState(): WalkerPoolState {
  let paused = 0;
  for (const holder of holders) if (holder.pausedSince !== undefined) paused++;
  return { holders: holders.size, paused, waiting: waiting.length, givingUp: givingUp.size };
}

/** acquireWalker returns a walk worker for `holder`'s walk, waiting while maxWalkers are busy. */
export async function acquireWalker(signal: AbortSignal | undefined, holder: WalkerHolder): Promise<Worker> {
  throwIfAborted(signal);
  if (running < maxWalkers) {
    running++;
  } else {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        waiting.splice(waiting.indexOf(granted), 1);
        try {
          throwIfAborted(signal);
        } catch (err) {
          reject(err);
        }
      };
      const granted = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(); // the releasing walk handed its place over: `running` is unchanged
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      waiting.push(granted);
      reclaimWalkers();
    });
  }
  holders.add(holder);
  const worker = idle.pop() ?? startWalker();
  worker.ref(); // a walk under way keeps the process alive, as any pending I/O does
  return worker;
}

/** releaseWalker gives `holder`'s worker back; `undefined` for one that crashed. */
export function releaseWalker(worker: Worker | undefined, holder: WalkerHolder): void {
  holders.delete(holder);
  givingUp.delete(holder);
  if (worker !== undefined) {
    if (idle.length < maxIdleWalkers) {
      worker.unref(); // an idle walker must not keep the process alive
      idle.push(worker);
    } else {
      void worker.terminate();
    }
  }
  const next = waiting.shift();
  if (next !== undefined) next();
  else running--;
}

/** walkerPaused tells the pool a holder began waiting for its searcher (see WalkerHolder). */
export function walkerPaused(): void {
  if (waiting.length > givingUp.size) reclaimWalkers();
}

/**
 * reclaimWalkers asks paused holders, longest paused first, to give their workers up, one for each
 * waiting search not yet served by a worker being given up.
 */
function reclaimWalkers(): void {
  const paused = [...holders].filter((h) => h.pausedSince !== undefined && !givingUp.has(h));
  paused.sort((a, b) => a.pausedSince! - b.pausedSince!);
  for (const holder of paused) {
    if (waiting.length <= givingUp.size) return;
    if (!holder.giveUpWalker()) continue;
    givingUp.add(holder);
    givenUp++;
  }
}

function startWalker(): Worker {
  // The walk's folder descriptors are closed by the searching thread, once searched: the walker
  // must not track them as its own (Node would close them all when it exits).
  return startWorker("./walk/walk-worker", undefined, { trackUnmanagedFds: false });
}
