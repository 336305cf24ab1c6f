import type { Writable } from "node:stream";
import { SendBudget, type StopSignal } from "./send-budget.js";
import { claimChunk, releaseChunk } from "../../files/read/chunk-buffers.js";

/**
 * BoundedWriter writes a server stream's messages to its HTTP/2 stream while keeping the bytes
 * accepted but not yet flushed to the socket within three budgets: the call's own
 * (`maxPendingBytes`, or two messages if larger), its connection's and the process's.
 *
 * Waiting for 'drain' alone bounds the count of queued messages (16 in object mode), not their
 * bytes: sixteen 3 MiB chunks are 48 MiB per call, and 256 streams of a client that never reads
 * held 3.7 GB. The write callbacks fire when HTTP/2 flow control lets the bytes out, so counting
 * them bounds memory however slow the client is.
 *
 * `reserve` is called before the handler produces the next message, so that a stalled connection
 * stops its handlers from reading more of a file, not only from writing it: it takes `estimate`
 * bytes (the largest message expected) from every budget, and `write` settles the reservation to
 * the message's real size.
 */
export class BoundedWriter {
  private readonly own: SendBudget;
  private reserved = 0;
  /** Bytes written whose callback has not fired yet; returned by release() if it never does. */
  private unflushed = 0;
  private released = false;
  /** File chunks written whose callback has not fired yet; let go by release() if it never does. */
  private readonly unflushedChunks = new Set<Uint8Array>();
  /** own and shared, in one array made once rather than per message. */
  private readonly all: readonly SendBudget[];

  constructor(
    private readonly call: Writable,
    maxPendingBytes: number,
    private readonly signal: StopSignal,
    private readonly shared: readonly SendBudget[] = [],
  ) {
    this.own = new SendBudget(maxPendingBytes);
    this.all = [this.own, ...shared];
  }

  /** reserve waits until `estimate` more bytes fit every budget, and takes them. */
  async reserve(estimate: number): Promise<void> {
    for (;;) {
      if (this.signal.aborted) {
        return;
      }
      // At least two messages may be in flight per call, so that one is flushed while the next
      // is queued; with one, large chunks go out in lock-step with the socket.
      const ownFits = this.own.pending + estimate <= Math.max(this.own.bound, 2 * estimate) || this.own.pending === 0;
      const blocker = ownFits ? this.shared.find((b) => !b.fits(estimate)) : this.own;
      if (blocker === undefined) {
        break;
      }
      await blocker.changed(this.signal);
    }
    for (const budget of this.all) {
      budget.take(estimate);
    }
    this.reserved = estimate;
  }

  /**
   * write queues one message, settling the reservation (if any) to its size. The file chunk the
   * message carries, if any, is claimed (chunk-buffers.ts) and released for reuse once it is on
   * the socket; at release() one still unflushed is let go without reuse.
   */
  async write(message: Buffer, chunk?: Uint8Array): Promise<void> {
    if (this.reserved === 0) {
      await this.reserve(message.byteLength);
    }
    if (this.signal.aborted) {
      this.settle(0);
      return;
    }
    const size = message.byteLength;
    this.settle(size);
    this.unflushed += size;
    if (chunk !== undefined) {
      // Held here until the callback: its read's share counts it until it is on the socket.
      claimChunk(chunk);
      this.unflushedChunks.add(chunk);
    }
    const accepted = this.call.write(message, (error?: Error | null) => {
      if (chunk !== undefined && this.unflushedChunks.delete(chunk)) {
        // A failed write may leave the memory referenced below the stream: never reused then.
        releaseChunk(chunk, error == null);
      }
      if (!this.released) {
        this.unflushed -= size;
        this.giveAll(size);
      }
    });
    if (!accepted && !this.signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.call.off("drain", done);
          this.signal.removeEventListener("abort", done);
          resolve();
        };
        this.call.once("drain", done);
        this.signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  /**
   * release returns an unused reservation and the bytes of writes whose callback has not fired,
   * at the end of the call: a write that failed on a reset stream may never be called back.
   */
  release(): void {
    this.settle(0);
    if (!this.released) {
      this.released = true;
      this.giveAll(this.unflushed);
      this.unflushed = 0;
      for (const chunk of this.unflushedChunks) {
        releaseChunk(chunk, false);
      }
      this.unflushedChunks.clear();
    }
  }

  private giveAll(bytes: number): void {
    for (const budget of this.all) {
      budget.give(bytes);
    }
  }

  private settle(size: number): void {
    const extra = this.reserved - size;
    this.reserved = 0;
    if (extra === 0) {
      return;
    }
    for (const budget of this.all) {
      if (extra > 0) {
        budget.give(extra);
      } else if (extra < 0) {
        budget.take(-extra);
      }
    }
  }
}
