import { ReadBufferBudget } from "./read-buffer-budget.js";

/**
 * ByteGate is a process-wide count of bytes of one kind held by file reads, against a bound:
 * `tryTake` takes room only if it fits now, `take` waits for it, `give` returns it. An empty
 * gate always takes one request, whatever its size, so a bound smaller than a chunk cannot
 * stall a read for ever.
 *
 * The transport bounds the bytes each connection has queued for the socket, but a file read
 * also holds chunks the transport never sees: the one read ahead of the consumer and those the
 * hash worker has not finished. Per stream that is a few chunks; 64 streams of 1 MiB chunks held
 * 200+ MiB outside every send budget. These gates bound both across the process.
 */
export class ByteGate {
  private held = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly bound: number) {}

  /** heldBytes is what is taken now. */
  get heldBytes(): number {
    return this.held;
  }

  /** tryTake takes `bytes` if they fit now and tells whether it did. */
  tryTake(bytes: number): boolean {
    if (this.held > 0 && this.held + bytes > this.bound) {
      return false;
    }
    this.held += bytes;
    return true;
  }

  /** take waits until `bytes` fit, then takes them (waiters are woken in order at each give). */
  async take(bytes: number): Promise<void> {
    while (!this.tryTake(bytes)) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** give returns bytes taken and wakes the waiters. */
  give(bytes: number): void {
    this.held -= bytes;
    for (const wake of this.waiters.splice(0)) {
      wake();
    }
  }
}

/** readAheadGate bounds the chunks read ahead of their consumer, across all reads (readRange). */
export const readAheadGate = new ByteGate(16 * 1024 * 1024);

/**
 * hashingGate bounds the chunks waiting for the one hash worker, across all reads (readBytes):
 * a longer queue does not hash faster, it only holds memory.
 */
export const hashingGate = new ByteGate(16 * 1024 * 1024);

/**
 * readBufferBudget bounds the chunks streamed byte reads (readBytes) hold from before each is
 * read until it is on the socket, across the process, each read to a fair share of it
 * (read-buffer-budget.ts). As large as the chunk pool (chunk-buffers.ts), so that the chunks in
 * use are the pool's own and a steady read allocates nothing.
 */
export const readBufferBudget = new ReadBufferBudget(32 * 1024 * 1024);
