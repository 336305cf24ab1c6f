import { setImmediate } from "node:timers/promises";

interface Waiter {
  readonly start: () => void;
}

/**
 * FairTurns runs the server's watch work (listing a folder, checking a batch of changed names)
 * a slice at a time: at most `concurrency` slices at once across all watches, so that libuv's
 * thread pool and the event loop stay free for other calls, and waiting slices taken one per
 * caller in rotation, so that a caller with many watches (or a huge tree) gets no more turns
 * than one with a single small watch. A slice is short by construction (one folder's listing
 * step, one folder's changed names), so a turn comes round within a few slices.
 *
 * Hand-written: p-limit and p-queue bound concurrency but have no per-owner rotation.
 */
export class FairTurns {
  #running = 0;
  /** Waiting slices per caller, callers in the order their turn comes (a Map keeps insertion order). */
  readonly #waiting = new Map<string, Waiter[]>();

  constructor(readonly concurrency: number) {}

  /** run waits for a turn for `owner`, runs `slice`, then passes the turn on; an abort while waiting rejects with its reason. */
  async run<T>(owner: string, slice: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(owner, signal);
    try {
      // A slice done in place (a local filesystem) finishes without waiting on anything: this
      // turn of the event loop lets other calls' I/O in between two slices.
      await setImmediate();
      signal?.throwIfAborted();
      return await slice();
    } finally {
      this.#running--;
      this.#next();
    }
  }

  /** waiting is the number of slices waiting for a turn. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.#waiting.values()) n += queue.length;
    return n;
  }

  #acquire(owner: string, signal: AbortSignal | undefined): Promise<void> | undefined {
    signal?.throwIfAborted();
    if (this.#running < this.concurrency && this.#waiting.size === 0) {
      this.#running++;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const queue = this.#waiting.get(owner);
        const at = queue?.indexOf(waiter) ?? -1;
        if (queue !== undefined && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.#waiting.delete(owner);
        }
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const queue = this.#waiting.get(owner);
      if (queue === undefined) this.#waiting.set(owner, [waiter]);
      else queue.push(waiter);
    });
  }

  /** next starts the first waiting slice of the caller whose turn it is, and sends that caller to the back. */
  #next(): void {
    while (this.#running < this.concurrency) {
      const first = this.#waiting.entries().next();
      if (first.done === true) return;
      const [owner, queue] = first.value;
      const waiter = queue.shift()!;
      this.#waiting.delete(owner);
      if (queue.length > 0) this.#waiting.set(owner, queue);
      this.#running++;
      waiter.start();
    }
  }
}
