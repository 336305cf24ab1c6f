import type { Writable } from "node:stream";
import { releaseChunk } from "../../files/read/chunk-buffers.js";

/**
 * BoundedWriter writes a server stream's messages to a grpc-js call while keeping at most
 * `maxPendingBytes` (or two messages, if larger) accepted but not yet flushed to the socket.
 *
 * Waiting for 'drain' alone bounds the count of queued messages (16 in object mode), not their
 * bytes: sixteen 3 MiB chunks are 48 MiB per call. The write callbacks fire when HTTP/2 flow
 * control lets the bytes out, so counting them bounds memory however slow the client is.
 */
export class BoundedWriter {
  private pendingBytes = 0;
  private wake: (() => void) | undefined;

  constructor(
    private readonly call: Writable,
    private readonly maxPendingBytes: number,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", () => this.wake?.(), { once: true });
  }

  /**
   * write queues one message, first waiting until the pending bytes are under the bound. The
   * file chunk the message carries, if any, is released for reuse once it is on the socket.
   */
  async write(message: Buffer, chunk?: Uint8Array): Promise<void> {
    // At least two messages may be in flight whatever their size, so that one is being flushed
    // while the next is queued; with one, large chunks go out in lock-step with the socket.
    const bound = Math.max(this.maxPendingBytes, 2 * message.byteLength);
    while (this.pendingBytes > 0 && this.pendingBytes + message.byteLength > bound && !this.signal.aborted) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    if (this.signal.aborted) {
      return;
    }
    const size = message.byteLength;
    this.pendingBytes += size;
    const accepted = this.call.write(message, (error?: Error | null) => {
      this.pendingBytes -= size;
      if (chunk !== undefined && error == null) {
        releaseChunk(chunk);
      }
      this.wake?.();
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
}
