import { EventEmitter } from "node:events";
import { h2Error } from "./frame.js";
import { HeldData } from "./held-data.js";
import { toIncoming } from "./incoming-headers.js";

/** StreamHost is what an H2Stream asks of its connection (H2Connection). */
export interface StreamHost {
  /** pump sends what the stream has queued, as far as the flow-control windows allow. */
  pump(stream: H2Stream): void;
  /** consumed credits `bytes` the stream handed to its reader back to the peer (WINDOW_UPDATE). */
  consumed(stream: H2Stream, bytes: number): void;
  /** reset sends RST_STREAM (or drops a stream not sent yet) and forgets the stream. */
  reset(stream: H2Stream, code: number): void;
  /** closed tells the connection that both sides of the stream have ended. */
  closed(stream: H2Stream): void;
}

/** writeHighWaterBytes is how much a stream queues to send before write() says to wait for 'drain'. */
const writeHighWaterBytes = 1024 * 1024;

/**
 * H2Stream is one call's HTTP/2 stream on the client's own connection (H2Connection), with the
 * part of node:http2's ClientHttp2Stream that the gRPC transport uses: the events 'response',
 * 'data', 'trailers', 'end', 'error', 'close', 'pause' and 'drain'; pause() and resume(), which
 * hold back the stream's WINDOW_UPDATEs, so the server stops once the window is spent; write()
 * and end() within the peer's windows; close(code) as RST_STREAM.
 *
 * 'end' comes after the last 'data' and 'close' after 'end' (or after 'error', for a connection
 * that failed, or at once for a reset), as on node:http2; a paused stream holds back its data,
 * 'end' and 'close' until it is resumed.
 */
export class H2Stream extends EventEmitter {
  /** The stream's identifier, 0 until its HEADERS go out (it may wait for a concurrency slot). */
  id = 0;
  /** The RST_STREAM code it ended with, NO_ERROR (0) for a stream that ended normally; undefined while open. */
  rstCode: number | undefined;
  /** The request's header block until its HEADERS go out. */
  headerBlock: Buffer | undefined;
  /** How many more bytes the peer lets it send (the peer's stream window). */
  sendWindow = 0;
  /** How many more bytes it lets the peer send before it credits them. */
  recvWindow = 0;
  /** Bytes handed to the reader but not yet credited to the peer. */
  recvUnacked = 0;
  /** END_STREAM received. */
  remoteEnded = false;
  /** END_STREAM sent. */
  localEnded = false;
  readonly #host: StreamHost;
  #sendQueue: Buffer[] = [];
  #sendHead = 0;
  #sendOffset = 0;
  #sendQueued = 0;
  #endRequested = false;
  #needDrain = false;
  #headersReceived = false;
  #paused = false;
  readonly #held = new HeldData();
  #endEmitted = false;
  #closed = false;
  #closeEmitted = false;

  constructor(host: StreamHost) {
    super();
    this.#host = host;
  }

  /** closed is true once the stream has ended on both sides, been reset, or its connection failed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** destroyed is closed: an H2Stream has no state between the two. */
  get destroyed(): boolean {
    return this.#closed;
  }

  /** writableEnded is true once end() was called. */
  get writableEnded(): boolean {
    return this.#endRequested;
  }

  /** pendingSendBytes is how many bytes are queued to send. */
  get pendingSendBytes(): number {
    return this.#sendQueued;
  }

  /** endRequested is true once the caller has ended its side (END_STREAM is due after the queued bytes). */
  get endRequested(): boolean {
    return this.#endRequested;
  }

  /** write queues `chunk` to send; false means wait for 'drain'. The chunk must not change afterwards. */
  write(chunk: Uint8Array): boolean {
    if (this.#endRequested || this.#closed) {
      return false;
    }
    if (chunk.byteLength > 0) {
      this.#sendQueue.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.#sendQueued += chunk.byteLength;
      this.#host.pump(this);
    }
    const ok = this.#sendQueued < writeHighWaterBytes;
    this.#needDrain ||= !ok;
    return ok;
  }

  /** end queues `chunk`, if given, and ends the client's side of the stream after it. */
  end(chunk?: Uint8Array): void {
    if (this.#endRequested || this.#closed) {
      return;
    }
    if (chunk !== undefined && chunk.byteLength > 0) {
      this.#sendQueue.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.#sendQueued += chunk.byteLength;
    }
    this.#endRequested = true;
    this.#host.pump(this);
  }

  /** take removes up to `max` queued bytes to send in one DATA frame. */
  take(max: number): Buffer {
    const head = this.#sendQueue[this.#sendHead]!;
    const n = Math.min(max, head.byteLength - this.#sendOffset);
    const out = n === head.byteLength ? head : head.subarray(this.#sendOffset, this.#sendOffset + n);
    this.#sendOffset += n;
    this.#sendQueued -= n;
    if (this.#sendOffset === head.byteLength) {
      this.#sendQueue[this.#sendHead++] = undefined as unknown as Buffer;
      this.#sendOffset = 0;
      if (this.#sendHead === this.#sendQueue.length) {
        this.#sendQueue = [];
        this.#sendHead = 0;
      }
    }
    return out;
  }

  /** sent is told by the connection after a pump; it emits 'drain' once the queue is low again. */
  sent(): void {
    if (this.#needDrain && this.#sendQueued < writeHighWaterBytes && !this.#closed) {
      this.#needDrain = false;
      this.emit("drain");
    }
  }

  /** close resets the stream with `code` (RST_STREAM), unless it has ended already. */
  close(code: number = h2Error.noError): void {
    if (this.#closed) {
      return;
    }
    this.#host.reset(this, code);
    this.#terminate(code);
  }

  /** destroy resets the stream with CANCEL, as node:http2's does. */
  destroy(): void {
    this.close(h2Error.cancel);
  }

  /** pause holds back 'data' and the stream's WINDOW_UPDATEs until resume(). */
  pause(): this {
    if (!this.#paused) {
      this.#paused = true;
      this.emit("pause");
    }
    return this;
  }

  /** resume hands on what was held back (in a later turn, as node:http2 does) and credits it. */
  resume(): this {
    if (this.#paused) {
      this.#paused = false;
      process.nextTick(() => this.#release());
    }
    return this;
  }

  isPaused(): boolean {
    return this.#paused;
  }

  /** receiveHeaders takes a decoded header block: the response's header, or its trailer. */
  receiveHeaders(fields: readonly (readonly [string, string])[], endStream: boolean): void {
    if (this.#closed) {
      return;
    }
    const headers = toIncoming(fields);
    if (headers === undefined) {
      this.close(h2Error.protocolError); // a malformed field: the call fails Internal
      return;
    }
    if (!this.#headersReceived) {
      const status = headers[":status"] as unknown as number;
      if (status >= 100 && status < 200 && !endStream) {
        return; // informational (100 Continue): the response's header is still to come
      }
      this.#headersReceived = true;
      this.emit("response", headers);
    } else if (!endStream) {
      this.close(h2Error.protocolError); // a second header block must end the stream
      return;
    } else {
      this.emit("trailers", headers);
    }
    if (endStream) {
      this.receiveEnd();
    }
  }

  /** receiveData takes a DATA frame's data: handed on at once, or held while paused. */
  receiveData(data: Buffer): void {
    if (this.#closed) {
      return;
    }
    if (this.#paused || !this.#held.empty) {
      this.#held.push(data);
      return;
    }
    this.emit("data", data);
    this.#host.consumed(this, data.byteLength);
  }

  /** receiveEnd takes the peer's END_STREAM. */
  receiveEnd(): void {
    this.remoteEnded = true;
    if (this.localEnded) {
      this.#host.closed(this);
    }
    if (!this.#paused && this.#held.empty) {
      this.#emitEnd();
    }
  }

  /** localEnd is told by the connection once END_STREAM has gone out. */
  localEnd(): void {
    this.localEnded = true;
    if (this.remoteEnded) {
      this.#host.closed(this);
      if (this.#endEmitted) this.#terminate(h2Error.noError);
    }
  }

  /** receiveReset takes the peer's RST_STREAM (or GOAWAY's refusal): the stream closes with `code`. */
  receiveReset(code: number): void {
    if (code === h2Error.noError && this.remoteEnded) {
      // The server answered in full and asks the client to stop sending: not a failure.
      this.localEnded = true;
      this.#endRequested = true;
      this.#sendQueue = [];
      this.#sendQueued = 0;
      if (this.#endEmitted) this.#terminate(code);
      return;
    }
    this.#terminate(code);
  }

  /** fail ends the stream because its connection failed with `error`. */
  fail(error: Error): void {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    this.rstCode = h2Error.internalError;
    this.#held.clear(); // the connection has failed: nothing to give back
    process.nextTick(() => {
      if (this.listenerCount("error") > 0) this.emit("error", error);
      this.#emitClose();
    });
  }

  #release(): void {
    while (!this.#paused && !this.#held.empty && !this.#closed) {
      const data = this.#held.shift()!;
      this.emit("data", data);
      this.#host.consumed(this, data.byteLength);
    }
    if (!this.#paused && this.#held.empty && this.remoteEnded) {
      this.#emitEnd();
    }
  }

  #emitEnd(): void {
    if (this.#endEmitted || (this.#closed && this.rstCode !== h2Error.noError)) {
      return;
    }
    this.#endEmitted = true;
    this.emit("end");
    if (this.localEnded) {
      this.#terminate(h2Error.noError);
    }
  }

  #terminate(code: number): void {
    if (!this.#closed) {
      this.#closed = true;
      this.rstCode = code;
      // Held bytes nobody will read: the connection's window is given them back, or after a few
      // cancelled reads of paused streams it would run dry and stall every call on it.
      const dropped = this.#held.clear();
      if (dropped > 0) this.#host.consumed(this, dropped);
    }
    if (code === h2Error.noError && this.#endEmitted) {
      this.#emitClose(); // after 'end', in the same turn
    } else {
      process.nextTick(() => this.#emitClose());
    }
  }

  #emitClose(): void {
    if (!this.#closeEmitted) {
      this.#closeEmitted = true;
      this.emit("close");
    }
  }
}
