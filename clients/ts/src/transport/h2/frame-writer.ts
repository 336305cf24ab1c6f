import type { Socket } from "node:net";

/** socketHighWaterBytes is how much may wait to be written before DATA frames wait for 'drain'. */
const socketHighWaterBytes = 4 * 1024 * 1024;
/** joinLimitBytes is the size up to which a turn's frames are joined into one buffer rather than written as a vector. */
const joinLimitBytes = 64 * 1024;

/**
 * FrameWriter writes the frames a connection queues in one turn of the event loop as one socket
 * write at the end of it: a small call's HEADERS and DATA leave in one packet, and a turn's many
 * DATA frames of an upload in one writev. `onWritten` is called after each write that left the
 * socket with room, so DATA that waited for it can go.
 */
export class FrameWriter {
  readonly #socket: Socket;
  readonly #onWritten: () => void;
  #out: Buffer[] = [];
  #outBytes = 0;
  #scheduled = false;

  constructor(socket: Socket, onWritten: () => void) {
    this.#socket = socket;
    this.#onWritten = onWritten;
  }

  /** full is true while more than the high-water mark waits to be written: DATA should wait. */
  get full(): boolean {
    return this.#socket.writableLength + this.#outBytes > socketHighWaterBytes;
  }

  /** queue adds a frame (or part of one) to this turn's write. */
  queue(buf: Buffer): void {
    this.#out.push(buf);
    this.#outBytes += buf.byteLength;
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(() => this.flush());
    }
  }

  /** flush writes what is queued now (at the end of the turn, or before the socket is ended). */
  flush(): void {
    this.#scheduled = false;
    const out = this.#out;
    const bytes = this.#outBytes;
    if (out.length === 0) {
      return;
    }
    this.#out = [];
    this.#outBytes = 0;
    const socket = this.#socket;
    if (socket.destroyed || socket.writableEnded) {
      return;
    }
    if (out.length === 1) {
      socket.write(out[0]!);
    } else if (bytes <= joinLimitBytes) {
      socket.write(Buffer.concat(out, bytes));
    } else {
      socket.cork();
      for (const b of out) socket.write(b);
      socket.uncork();
    }
    if (!this.full) {
      this.#onWritten();
    }
  }
}
