/**
 * EventQueue is a bounded queue between a watcher (push, never blocks) and a stream consumer
 * (pull). When the consumer falls behind and the queue is full, everything queued is dropped
 * and the next pull returns the overflow marker instead: the client re-lists, and server memory
 * stays bounded.
 */
export class EventQueue<T> {
  #items: T[] = [];
  #overflowed = false;
  #ended = false;
  #error: unknown;
  #wake: (() => void) | undefined;

  constructor(
    private readonly capacity: number,
    private readonly overflow: T,
  ) {}

  /** push adds an item, or drops the queue and marks an overflow when it is full. */
  push(item: T): void {
    if (this.#ended) return;
    if (this.#items.length >= this.capacity) {
      this.#items = [];
      this.#overflowed = true;
    } else {
      this.#items.push(item);
    }
    this.#notify();
  }

  /** end lets the consumer finish after the queued items (or fail with `error`). */
  end(error?: unknown): void {
    this.#ended = true;
    this.#error = error;
    this.#notify();
  }

  /** pull waits for the next item; undefined once ended and drained. */
  async pull(signal?: AbortSignal): Promise<T | undefined> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.#overflowed) {
        this.#overflowed = false;
        return this.overflow;
      }
      const item = this.#items.shift();
      if (item !== undefined) return item;
      if (this.#ended) {
        if (this.#error !== undefined) throw this.#error;
        return undefined;
      }
      await new Promise<void>((resolve) => {
        const onAbort = (): void => resolve();
        signal?.addEventListener("abort", onAbort, { once: true });
        this.#wake = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
      });
    }
  }

  /** size is the number of queued items. */
  get size(): number {
    return this.#items.length;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
