import { abortReason } from "./abortable.js";

interface Waiter {
  readonly share: ReadShare;
  readonly bytes: number;
  readonly admit: () => void;
}

/**
 * ReadBufferBudget bounds the chunk memory that streamed byte reads hold across the process: a
 * read takes a chunk's bytes from its ReadShare before reading the chunk, and they come back
 * when the chunk is done with (released by the transport once on the socket, or handed to a
 * consumer that keeps its own copy; chunk-buffers.ts).
 *
 * Fair: each open read may hold at most an equal share of the bound (the bound over the reads
 * open), and a read that holds nothing is always given one chunk, whatever the others hold. So
 * a huge read on a slow connection never stalls a small one: while others wait, it cannot take
 * more than its share, and the small one's first chunk never waits at all. Waiters are admitted
 * in order as bytes come back, each as soon as it fits, not behind a larger one.
 */
export class ReadBufferBudget {
  #held = 0;
  readonly #open = new Set<ReadShare>();
  readonly #waiters: Waiter[] = [];

  constructor(readonly bound: number) {}

  /** heldBytes is what every read holds now. */
  get heldBytes(): number {
    return this.#held;
  }

  /** openReads is how many reads hold a share now. */
  get openReads(): number {
    return this.#open.size;
  }

  /** open gives one read its share; close() it when the read ends. */
  open(): ReadShare {
    const share = new ReadShare(this);
    this.#open.add(share);
    return share;
  }

  /** fits tells whether `share` may take `bytes` now. */
  fits(share: ReadShare, bytes: number): boolean {
    if (share.heldBytes === 0) {
      return true;
    }
    const fair = Math.max(bytes, Math.floor(this.bound / Math.max(1, this.#open.size)));
    return this.#held + bytes <= this.bound && share.heldBytes + bytes <= fair;
  }

  /** @internal counts bytes a share took. */
  took(bytes: number): void {
    this.#held += bytes;
  }

  /** @internal counts bytes a share gave back, and admits the waiters that fit now. */
  gave(bytes: number): void {
    this.#held -= bytes;
    this.#wake();
  }

  /** @internal queues a share's wait. */
  wait(waiter: Waiter): void {
    this.#waiters.push(waiter);
  }

  /** @internal drops a wait that was given up (its read aborted). */
  unwait(waiter: Waiter): void {
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
  }

  /** @internal forgets a closed share; the others' fair share grows. */
  closed(share: ReadShare): void {
    this.#open.delete(share);
    this.#wake();
  }

  #wake(): void {
    for (let i = 0; i < this.#waiters.length; ) {
      const waiter = this.#waiters[i] as Waiter;
      if (this.fits(waiter.share, waiter.bytes)) {
        this.#waiters.splice(i, 1);
        waiter.admit();
      } else {
        i++;
      }
    }
  }
}

/** ReadShare is one read's part of a ReadBufferBudget. */
export class ReadShare {
  #held = 0;
  #closed = false;

  constructor(private readonly budget: ReadBufferBudget) {}

  /** heldBytes is what this read holds now. */
  get heldBytes(): number {
    return this.#held;
  }

  /** tryTake takes `bytes` if they fit this read's share now, and tells whether it did. */
  tryTake(bytes: number): boolean {
    if (!this.budget.fits(this, bytes)) {
      return false;
    }
    this.#count(bytes);
    return true;
  }

  /** take waits until `bytes` fit this read's share (or rejects when `signal` aborts), then takes them. */
  async take(bytes: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.budget.fits(this, bytes)) {
      this.#count(bytes);
    } else {
      // Counted when admitted, inside the wake-up, so that the next waiter sees these bytes taken.
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          this.budget.unwait(waiter);
          reject(abortReason(signal as AbortSignal));
        };
        const waiter: Waiter = {
          share: this,
          bytes,
          admit: () => {
            signal?.removeEventListener("abort", onAbort);
            this.#count(bytes);
            resolve();
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.budget.wait(waiter);
      });
    }
  }

  #count(bytes: number): void {
    this.#held += bytes;
    this.budget.took(bytes);
  }

  /** give returns bytes taken. */
  give(bytes: number): void {
    this.#held -= bytes;
    this.budget.gave(bytes);
  }

  /** close ends this read's claim to a share; bytes still held come back through give. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.budget.closed(this);
  }
}
