import { defaultMaxFrameSize, defaultWindow, frameFlag, frameHeader, frameType } from "./frame.js";
import type { FrameWriter } from "./frame-writer.js";
import type { H2Stream } from "./h2-stream.js";

/**
 * DataSender sends what streams queued (write, end) as DATA frames within the peer's flow-control
 * windows, the connection's and each stream's, and no faster than the socket takes them; a stream
 * that has to wait is kept until a WINDOW_UPDATE, new SETTINGS or a drained socket lets it go on.
 * END_STREAM rides on a stream's last DATA frame (or an empty one).
 */
export class DataSender {
  /** How much more the peer lets the client send on the connection. */
  window = defaultWindow;
  /** The largest frame the peer takes (its SETTINGS_MAX_FRAME_SIZE). */
  maxFrameSize = defaultMaxFrameSize;
  readonly #writer: FrameWriter;
  readonly #blocked = new Set<H2Stream>();

  constructor(writer: FrameWriter) {
    this.#writer = writer;
  }

  /** send sends as much of `stream`'s queue as the windows and the socket allow. */
  send(stream: H2Stream): void {
    if (stream.id === 0 || stream.closed || stream.localEnded) {
      return;
    }
    while (stream.pendingSendBytes > 0) {
      const room = Math.min(stream.sendWindow, this.window, this.maxFrameSize);
      if (room <= 0 || this.#writer.full) {
        this.#blocked.add(stream);
        stream.sent();
        return;
      }
      const data = stream.take(room);
      stream.sendWindow -= data.byteLength;
      this.window -= data.byteLength;
      const last = stream.pendingSendBytes === 0 && stream.endRequested;
      this.#writer.queue(frameHeader(data.byteLength, frameType.data, last ? frameFlag.endStream : 0, stream.id));
      this.#writer.queue(data);
      if (last) {
        this.#blocked.delete(stream);
        stream.localEnd();
        return;
      }
    }
    this.#blocked.delete(stream);
    if (stream.endRequested) {
      this.#writer.queue(frameHeader(0, frameType.data, frameFlag.endStream, stream.id));
      stream.localEnd();
      return;
    }
    stream.sent();
  }

  /** sendWaiting gives every stream that waited for room another go. */
  sendWaiting(): void {
    if (this.#blocked.size === 0) {
      return;
    }
    for (const stream of [...this.#blocked]) {
      this.#blocked.delete(stream);
      this.send(stream);
    }
  }

  /** forget drops `stream` (ended, reset, or its connection failed). */
  forget(stream: H2Stream): void {
    this.#blocked.delete(stream);
  }

  /** clear drops every waiting stream. */
  clear(): void {
    this.#blocked.clear();
  }
}
