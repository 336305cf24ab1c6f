import { windowUpdateFrame } from "./frame.js";
import type { FrameWriter } from "./frame-writer.js";
import type { H2Stream } from "./h2-stream.js";

/**
 * ReceiveWindows keeps the client's receive windows: how much DATA the peer may still send on the
 * connection and on each stream, given back (WINDOW_UPDATE) as the calls' readers take the data,
 * a quarter of a window at a time, so a paused reader holds the server back.
 */
export class ReceiveWindows {
  readonly #writer: FrameWriter;
  readonly #streamWindow: number;
  readonly #connectionWindow: number;
  /** How much more the peer may send on the connection. */
  #connection: number;
  /** Bytes taken on the connection but not yet given back. */
  #unacked = 0;

  constructor(writer: FrameWriter, streamWindow: number, connectionWindow: number) {
    this.#writer = writer;
    this.#streamWindow = streamWindow;
    this.#connectionWindow = connectionWindow;
    this.#connection = connectionWindow;
  }

  /** received counts `bytes` of DATA against the connection's window; false if the peer overran it. */
  received(bytes: number): boolean {
    this.#connection -= bytes;
    return this.#connection >= 0;
  }

  /** credit gives `bytes` back to the connection, and to `stream` (if given) unless it has ended. */
  credit(stream: H2Stream | undefined, bytes: number): void {
    this.#unacked += bytes;
    if (this.#unacked >= this.#connectionWindow / 4) {
      this.#writer.queue(windowUpdateFrame(0, this.#unacked));
      this.#connection += this.#unacked;
      this.#unacked = 0;
    }
    if (stream !== undefined && !stream.remoteEnded && !stream.closed) {
      stream.recvUnacked += bytes;
      if (stream.recvUnacked >= this.#streamWindow / 4) {
        this.#writer.queue(windowUpdateFrame(stream.id, stream.recvUnacked));
        stream.recvWindow += stream.recvUnacked;
        stream.recvUnacked = 0;
      }
    }
  }
}
