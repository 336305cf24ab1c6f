import { constants, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import { GrpcFrameTracker } from "../grpc/grpc-frame-tracker.js";
import { IndexedList } from "../indexed-list.js";
import type { StreamGuardOptions } from "../grpc/stream-guard-options.js";

const { NGHTTP2_CANCEL, NGHTTP2_ENHANCE_YOUR_CALM } = constants;

/** StreamCounts are the live counts of one connection, or of the whole server. */
interface StreamCounts {
  streams: number;
  receiveBytes: number;
}

/** RequestProblem is why a request body is refused: its gRPC code and the message to send. */
export interface RequestProblem {
  readonly code: number;
  readonly message: string;
}

const invalidArgument = 3;
const internal = 13;

/**
 * GrpcStreamLimits keeps, for the node:http2 host, the bounds the grpc-js host's stream guard
 * kept, from the public 'stream' event and the body the host reads
 * itself, with no emit wrapping:
 * - a connection's streams over `maxStreamsPerConnection` are refused one by one with
 *   RST_STREAM REFUSED_STREAM (admit), never the connection;
 * - a request message begun but not whole within the receive timeout (a single-request method:
 *   until the half-close) resets its stream with CANCEL. The clock runs only while the host waits
 *   for the client's bytes, not while the handler works on a message it has;
 * - the incomplete messages of a connection, or of the server, past their byte bound reset the
 *   stream with ENHANCE_YOUR_CALM (RESOURCE_EXHAUSTED to gRPC clients);
 * - a half-close inside a message, or before the one message a single-request method takes, and
 *   a message flagged compressed on a call that declares no encoding, are RequestProblems: the
 *   body fails with them, so a truncated upload is never committed.
 * Timeouts are found by one sweep over the streams waiting, not a timer each.
 */
export class GrpcStreamLimits {
  readonly total: StreamCounts = { streams: 0, receiveBytes: 0 };
  readonly #sessions = new WeakMap<ServerHttp2Session, StreamCounts>();
  readonly waiting = new IndexedList<StreamAccount>();
  readonly #sweepMs: number;
  #sweep: NodeJS.Timeout | undefined;

  constructor(readonly options: Omit<StreamGuardOptions, "onStreamClosed">) {
    this.#sweepMs = Math.max(10, Math.min(1000, Math.floor(options.receiveMessageTimeoutMs / 4)));
  }

  /** admit counts a new stream; undefined when it was refused (over its connection's stream limit). */
  admit(stream: ServerHttp2Stream, path: string, compressed: boolean): StreamAccount | undefined {
    const session = stream.session as ServerHttp2Session | undefined;
    if (session === undefined) return undefined;
    let counts = this.#sessions.get(session);
    if (counts === undefined) {
      counts = { streams: 0, receiveBytes: 0 };
      this.#sessions.set(session, counts);
    }
    if (counts.streams >= this.options.maxStreamsPerConnection) {
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return undefined;
    }
    return new StreamAccount(this, stream, counts, this.options.singleRequest(path), compressed);
  }

  /**
   * wait starts a stream's receive clock (a no-op when it is running) with what is left of its
   * message's time: the clock is paused, not reset, between chunks of one message, so a message
   * sent a byte at a time still times out.
   */
  wait(account: StreamAccount): void {
    if (account.listIndex >= 0) return;
    account.deadline = performance.now() + account.leftMs;
    this.waiting.add(account);
    if (this.#sweep === undefined) {
      this.#sweep = setInterval(() => this.#sweepWaiting(), this.#sweepMs);
      this.#sweep.unref();
    }
  }

  /** stopWaiting stops a stream's receive clock, keeping what is left of its message's time. */
  stopWaiting(account: StreamAccount): void {
    if (account.listIndex < 0) return;
    account.leftMs = Math.max(0, account.deadline - performance.now());
    this.waiting.remove(account);
  }

  #sweepWaiting(): void {
    const now = performance.now();
    for (let i = this.waiting.length - 1; i >= 0; i = Math.min(i, this.waiting.length) - 1) {
      const account = this.waiting.at(i);
      if (account.deadline <= now) {
        this.stopWaiting(account);
        if (!account.stream.closed) account.stream.close(NGHTTP2_CANCEL);
      }
    }
    if (this.waiting.length === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }
}

/** StreamAccount is one admitted stream's share of the limits, until it closes. */
export class StreamAccount {
  readonly tracker = new GrpcFrameTracker();
  /** Request body bytes read (DATA payload). */
  received = 0;
  charged = 0;
  deadline = 0;
  /**
   * What is left of the receive timeout of the message coming in (a single-request method's:
   * of the whole request, until its half-close), while the clock is stopped.
   */
  leftMs: number;
  listIndex = -1;
  #closed = false;

  constructor(
    readonly limits: GrpcStreamLimits,
    readonly stream: ServerHttp2Stream,
    readonly counts: StreamCounts,
    readonly single: boolean,
    readonly compressed: boolean,
  ) {
    counts.streams += 1;
    limits.total.streams += 1;
    this.leftMs = limits.options.receiveMessageTimeoutMs;
  }

  /** The request's message bytes, without their 5-byte prefixes, as the grpc-js host counts them. */
  get messageBytes(): number {
    return Math.max(0, this.received - 5 * this.tracker.messages);
  }

  /** Whether the receive clock must run while the host waits for more of the body. */
  get expecting(): boolean {
    return this.single || this.tracker.inMessage || this.tracker.messages === 0;
  }

  /** push accounts for one chunk of the body; a problem when it must not be passed on. */
  push(data: Buffer): RequestProblem | undefined {
    this.received += data.length;
    const whole = this.tracker.messages;
    this.tracker.push(data);
    // A streamed request's next message has its own time, from its first byte.
    if (!this.single && this.tracker.messages > whole) this.leftMs = this.limits.options.receiveMessageTimeoutMs;
    this.#charge(this.single ? this.received : this.tracker.partialBytes);
    const { options, total } = this.limits;
    if (
      this.counts.receiveBytes > options.maxReceiveBufferBytesPerConnection ||
      total.receiveBytes > options.maxReceiveBufferBytes
    ) {
      this.#charge(0);
      this.stream.close(NGHTTP2_ENHANCE_YOUR_CALM);
      return { code: 8, message: "the server's receive buffers are full; the stream was reset" };
    }
    const flags = this.tracker.flags;
    if (flags !== 0 && (flags > 1 || !this.compressed)) {
      return {
        code: internal,
        message:
          flags > 1
            ? `A request message has reserved flag bits set (flags ${flags}): only bit 0, compressed, is defined. Send messages with flag 0 or 1.`
            : "A request message is flagged compressed, but the call declares no grpc-encoding: nothing of it was read. Send it uncompressed with flag 0, or name its encoding in grpc-encoding.",
      };
    }
    return undefined;
  }

  /** end checks the half-close; a problem when the body stopped inside a message or before the one needed. */
  end(): RequestProblem | undefined {
    this.#charge(0);
    if (this.tracker.inMessage) {
      return {
        code: invalidArgument,
        message: `The request stream ended inside a message: ${this.tracker.partialBytes} bytes of its last message arrived, not all of it; nothing was committed. Send whole messages and half-close after the last one.`,
      };
    }
    if (this.single && this.tracker.messages === 0) {
      return {
        code: invalidArgument,
        message:
          "The request message is missing: the stream half-closed before sending one. Send exactly one request message.",
      };
    }
    return undefined;
  }

  /** close gives the stream's counts back; once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.limits.stopWaiting(this);
    this.#charge(0);
    this.counts.streams -= 1;
    this.limits.total.streams -= 1;
  }

  #charge(bytes: number): void {
    this.counts.receiveBytes += bytes - this.charged;
    this.limits.total.receiveBytes += bytes - this.charged;
    this.charged = bytes;
  }
}
