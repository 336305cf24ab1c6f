import type { Socket } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { clientPreface, defaultMaxFrameSize, defaultWindow, goawayFrame, h2Error, headerFrames, maxWindow, rstStreamFrame } from "./frame.js";
import { FrameParser } from "./frame-parser.js";
import type { FrameReceiver } from "./frame-receiver.js";
import { FrameWriter } from "./frame-writer.js";
import { http1Answer } from "./http1-answer.js";
import { ReceiveWindows } from "./receive-windows.js";
import { DataSender } from "./data-sender.js";
import { H2ProtocolError } from "./h2-protocol-error.js";
import { H2Stream, type StreamHost } from "./h2-stream.js";
import { HpackDecoder } from "./hpack-decoder.js";
import { HpackError } from "./hpack-error.js";
import { receiveFrame } from "./receive-frame.js";

/** H2ConnectionOptions size an H2Connection's receive side. */
export interface H2ConnectionOptions {
  /** The receive window per stream (SETTINGS_INITIAL_WINDOW_SIZE). */
  readonly streamWindow: number;
  /** The receive window of the connection. */
  readonly connectionWindow: number;
  /** The largest response header or trailer block accepted (SETTINGS_MAX_HEADER_LIST_SIZE). */
  readonly maxHeaderListSize: number;
  /** Where the connection goes, for error messages ("host:port"). */
  readonly authority: string;
}

/** maxUnsentAcks is how many PING and SETTINGS answers may wait behind a full socket. */
const maxUnsentAcks = 1000;
/** lastStreamId is the largest client stream identifier; past it the connection takes no new calls. */
const lastStreamId = 0x7fff_ffff;

/**
 * H2Connection is the client side of one HTTP/2 connection over a socket it is given (plain TCP,
 * or TLS that agreed on "h2"): streams opened in the caller's turn, their requests' HEADERS and
 * DATA written together at the end of it, both directions' flow control, the peer's concurrency
 * limit (streams beyond it wait), SETTINGS, PING, RST_STREAM and GOAWAY. It is what the gRPC
 * transport needs and no more: no server push (disabled in its SETTINGS), no priorities, no
 * HPACK dynamic table on the sending side.
 *
 * Hand-written rather than node:http2 because node:http2's per-stream machinery (a Duplex per
 * stream, nghttp2 callbacks across the C++ boundary, async hooks) costs a small call ~0.6 ms of
 * CPU in a fresh process, about half of the client's time per 35 KB read (bench/README.md, mcp
 * section, "raw-h2-floor"); no maintained npm package speaks HTTP/2 without node:http2.
 */
export class H2Connection implements StreamHost, FrameReceiver {
  readonly #socket: Socket;
  readonly #options: H2ConnectionOptions;
  readonly #parser: FrameParser;
  /** Read by receiveFrame. */
  readonly decoder: HpackDecoder;
  /** The largest header block gathered from CONTINUATION frames before it is decoded. */
  readonly maxHeaderBlockBytes: number;
  readonly #streams = new Map<number, H2Stream>();
  readonly #waiting: H2Stream[] = [];
  #nextId = 1;
  /**
   * The peer's settings. Until its first SETTINGS arrive, at most 100 streams (the least RFC 9113
   * asks a server to allow), so a burst of calls on a new connection is not refused past a lower
   * limit the client has not heard of yet.
   */
  peerMaxConcurrent = 100;
  peerInitialWindow = defaultWindow;
  /** Sends the streams' DATA; holds the connection's send window and the peer's largest frame size. */
  readonly sender: DataSender;
  readonly #windows: ReceiveWindows;
  /** A header block being gathered from HEADERS and CONTINUATION frames (receiveFrame). */
  continuation: { readonly streamId: number; readonly flags: number; readonly parts: Buffer[]; size: number } | undefined;
  settingsReceived = false;
  #firstBytes = true;
  #state: "open" | "draining" | "closed" = "open";
  readonly #writer: FrameWriter;
  #refed = true;
  #acksWhileFull = 0;
  /** Told when the connection takes no more calls (GOAWAY, failure, close). */
  onRetire: (() => void) | undefined;

  constructor(socket: Socket, options: H2ConnectionOptions) {
    this.#socket = socket;
    this.#options = options;
    this.decoder = new HpackDecoder(4096, options.maxHeaderListSize);
    this.maxHeaderBlockBytes = 2 * options.maxHeaderListSize;
    this.#parser = new FrameParser(defaultMaxFrameSize, (type, flags, streamId, payload) => {
      if (this.#state !== "closed") receiveFrame(this, type, flags, streamId, payload); // the rest of a chunk after a failure is dropped
    });
    socket.setNoDelay?.(true);
    socket.on("data", (chunk: Buffer) => this.#onSocketData(chunk));
    socket.on("error", (err) => this.fail(err));
    socket.on("close", () => this.fail(new ConnectError(`the HTTP/2 connection to ${options.authority} closed`, Code.Unavailable)));
    socket.on("drain", () => this.sender.sendWaiting());
    this.#writer = new FrameWriter(socket, () => this.sender.sendWaiting());
    this.sender = new DataSender(this.#writer);
    this.#windows = new ReceiveWindows(this.#writer, options.streamWindow, options.connectionWindow);
    for (const part of clientPreface(options.streamWindow, options.connectionWindow, options.maxHeaderListSize)) this.#writer.queue(part);
  }

  /** usable is true while the connection takes new calls. */
  get usable(): boolean {
    return this.#state === "open" && this.#nextId < lastStreamId;
  }

  /** open starts a call: a stream whose HEADERS (`headerBlock`, HPACK-encoded) go out now, or once the peer's concurrency limit lets them. */
  open(headerBlock: Buffer): H2Stream {
    if (this.#state !== "open") {
      throw new ConnectError(`the HTTP/2 connection to ${this.#options.authority} is closing`, Code.Unavailable);
    }
    const stream = new H2Stream(this);
    stream.headerBlock = headerBlock;
    stream.recvWindow = this.#options.streamWindow;
    if (!this.#refed) {
      this.#refed = true;
      this.#socket.ref();
    }
    if (this.#streams.size < this.peerMaxConcurrent) {
      this.#start(stream);
    } else {
      this.#waiting.push(stream);
    }
    return stream;
  }

  /** close lets the calls under way finish, takes no new ones, and then closes the socket. */
  close(): void {
    if (this.#state === "open") {
      this.#state = "draining";
      this.#writer.queue(goawayFrame(0, h2Error.noError));
      this.onRetire?.();
      this.#closeIfDone();
    }
  }

  /** fail ends the connection and every call on it with `error` (a GOAWAY with `h2Code` first, if given). */
  fail(error: Error, h2Code?: number): void {
    if (this.#state === "closed") {
      return;
    }
    this.#state = "closed";
    this.onRetire?.();
    if (h2Code !== undefined && !this.#socket.destroyed) {
      this.#writer.flush();
      this.#socket.end(goawayFrame(0, h2Code));
      setTimeout(() => this.#socket.destroy(), 1000).unref();
    } else {
      this.#socket.destroy();
    }
    const failed = h2Code === undefined || error instanceof ConnectError ? error : new ConnectError(`HTTP/2 protocol error from ${this.#options.authority}: ${error.message}`, Code.Internal);
    for (const stream of [...this.#streams.values(), ...this.#waiting]) {
      stream.fail(failed);
    }
    this.#streams.clear();
    this.#waiting.length = 0;
    this.sender.clear();
  }

  /** stream is the open stream `id`, if any. */
  stream(id: number): H2Stream | undefined {
    return this.#streams.get(id);
  }

  /** isIdle tells whether `id` names no stream the client opened: one it has not opened yet, or an even (server-initiated) one. */
  isIdle(id: number): boolean {
    return id >= this.#nextId || (id & 1) === 0;
  }

  /**
   * acknowledge queues the answer to the peer's PING or SETTINGS. A peer that sends them faster
   * than it reads the answers (past maxUnsentAcks while the socket is backed up) is flooding:
   * the connection ends with ENHANCE_YOUR_CALM, as nghttp2 does, rather than queue without end.
   */
  acknowledge(ack: Buffer): void {
    if (this.#writer.full) {
      if (++this.#acksWhileFull > maxUnsentAcks) {
        throw new H2ProtocolError(`more than ${maxUnsentAcks} PING or SETTINGS frames to answer while the server reads nothing`, h2Error.enhanceYourCalm);
      }
    } else {
      this.#acksWhileFull = 0;
    }
    this.#writer.queue(ack);
  }

  /** goaway stops taking calls after the peer's GOAWAY; calls past `lastStreamId` are refused. */
  goaway(last: number): void {
    if (this.#state === "open") {
      this.#state = "draining";
      this.onRetire?.();
    }
    for (const [id, stream] of this.#streams) {
      if (id > last) {
        this.#streams.delete(id);
        this.sender.forget(stream);
        stream.receiveReset(h2Error.refusedStream);
      }
    }
    for (const stream of this.#waiting.splice(0)) {
      stream.receiveReset(h2Error.refusedStream);
    }
    this.#closeIfDone();
  }

  /** peerReset takes the peer's RST_STREAM for `stream`. */
  peerReset(stream: H2Stream, code: number): void {
    this.#forget(stream);
    stream.receiveReset(code);
  }

  /** settingsChanged applies the peer's new settings: window deltas, and streams that may now start or send. */
  settingsChanged(windowDelta: number): void {
    if (windowDelta !== 0) {
      for (const stream of this.#streams.values()) {
        stream.sendWindow += windowDelta;
        if (stream.sendWindow > maxWindow) {
          throw new H2ProtocolError("SETTINGS_INITIAL_WINDOW_SIZE made a stream's window too large", h2Error.flowControlError);
        }
      }
    }
    this.#startWaiting();
    this.sender.sendWaiting();
  }

  /** windowOpened is told that a WINDOW_UPDATE gave the connection (no stream) or `stream` more room. */
  windowOpened(stream: H2Stream | undefined): void {
    if (stream === undefined) this.sender.sendWaiting();
    else this.pump(stream);
  }

  received(bytes: number): boolean {
    return this.#windows.received(bytes);
  }

  /** creditConnection gives the peer back connection window for `bytes` it sent that no stream takes. */
  creditConnection(bytes: number): void {
    this.#windows.credit(undefined, bytes);
  }

  pump(stream: H2Stream): void {
    this.sender.send(stream);
  }

  consumed(stream: H2Stream, bytes: number): void {
    this.#windows.credit(stream, bytes);
  }

  reset(stream: H2Stream, code: number): void {
    if (stream.id === 0) {
      const at = this.#waiting.indexOf(stream);
      if (at >= 0) this.#waiting.splice(at, 1);
      return;
    }
    if (this.#streams.has(stream.id) && this.#state !== "closed") {
      this.#writer.queue(rstStreamFrame(stream.id, code));
    }
    this.#forget(stream);
  }

  closed(stream: H2Stream): void {
    this.#forget(stream);
  }

  #start(stream: H2Stream): void {
    const id = this.#nextId;
    this.#nextId += 2;
    stream.id = id;
    stream.sendWindow = this.peerInitialWindow;
    this.#streams.set(id, stream);
    const block = stream.headerBlock!;
    stream.headerBlock = undefined;
    for (const part of headerFrames(block, id, this.sender.maxFrameSize)) this.#writer.queue(part);
    this.pump(stream);
  }

  #forget(stream: H2Stream): void {
    if (stream.id !== 0 && this.#streams.get(stream.id) === stream) {
      this.#streams.delete(stream.id);
      this.sender.forget(stream);
      this.#startWaiting();
      this.#closeIfDone();
    }
  }

  #startWaiting(): void {
    // Also while draining after close(): the calls made before it still go out (a GOAWAY from the
    // server refuses the waiting ones instead).
    while (this.#waiting.length > 0 && this.#streams.size < this.peerMaxConcurrent && this.#state !== "closed") {
      this.#start(this.#waiting.shift()!);
    }
  }

  #closeIfDone(): void {
    if (this.#streams.size > 0 || this.#waiting.length > 0) {
      return;
    }
    if (this.#state === "draining") {
      this.#state = "closed";
      this.#writer.flush();
      this.#socket.end();
    } else if (this.#refed && this.#state === "open") {
      // No call under way: the connection does not keep the process alive (as connect-node's).
      this.#refed = false;
      this.#socket.unref();
    }
  }

  #onSocketData(chunk: Buffer): void {
    if (this.#firstBytes) {
      this.#firstBytes = false;
      const http1 = http1Answer(chunk, this.#options.authority);
      if (http1 !== undefined) {
        this.fail(http1);
        return;
      }
    }
    try {
      this.#parser.push(chunk);
    } catch (err) {
      if (err instanceof H2ProtocolError) this.fail(err, err.h2Code);
      else if (err instanceof HpackError) this.fail(err, h2Error.compressionError);
      else this.fail(err instanceof Error ? err : new Error(String(err)), h2Error.internalError);
    }
  }
}
