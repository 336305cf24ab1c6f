import type { Worker } from "node:worker_threads";
import { throwIfAborted } from "../../read/abortable.js";
import { startWorker } from "../start-worker.js";

/**
 * maxWalkers is the most walk worker threads at once, one per running search: a search beyond
 * it waits for one to be free (a walk holds its thread for the whole search, paused while its
 * consumer does not pull), so that many concurrent searches cannot start threads without bound.
 */
export const maxWalkers = 16;
/** maxIdleWalkers is how many finished walk workers are kept for the next searches. */
const maxIdleWalkers = 2;

const idle: Worker[] = [];
const waiting: (() => void)[] = [];
let running = 0;

/** walkThreads is how many walk worker threads exist: busy ones and idle ones kept. */
export function walkThreads(): number {
  return running + idle.length;
}

/** acquireWalker returns a walk worker for one walk, waiting while maxWalkers are busy. */
export async function acquireWalker(signal: AbortSignal | undefined): Promise<Worker> {
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
    });
  }
  const worker = idle.pop() ?? startWalker();
  worker.ref(); // a walk under way keeps the process alive, as any pending I/O does
  return worker;
}

/** releaseWalker gives a worker back after its walk ended; `undefined` for one that crashed. */
export function releaseWalker(worker: Worker | undefined): void {
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

function startWalker(): Worker {
  // The walk's folder descriptors are closed by the searching thread, once searched: the walker
  // must not track them as its own (Node would close them all when it exits).
  return startWorker("./walk/walk-worker", undefined, { trackUnmanagedFds: false });
}
