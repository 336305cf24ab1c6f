import { constants, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { validateResponse, validateTrailer } from "@connectrpc/connect/protocol-grpc";
import type { CallSignal } from "./call-signal.js";
import type { BufferRecycler } from "./buffer-recycler.js";
import { EnvelopeSplitter } from "./grpc-envelope.js";
import { holdsView } from "./holds-view.js";
import { toHeaders } from "./fetch-headers.js";
import type { ResponseReaderOptions } from "./response-reader-options.js";
import { connectErrorFromStream, connectErrorFromResetCode } from "./http2-stream-error.js";

export type { ResponseReaderOptions } from "./response-reader-options.js";

type Settle<T> = { resolve: (value: T) => void; reject: (e: unknown) => void };

/**
 * GrpcResponseReader reads one gRPC response from an HTTP/2 stream: its header, its messages
 * (decoded by `decode` when the caller takes them, as an async iterator paused past a high-water
 * mark so a slow consumer holds the server back through HTTP/2 flow control, or as the one
 * message of a unary call, `single()`) and its trailer, and turns a non-OK status, a reset or an
 * aborted call signal into a ConnectError. It ends the call signal (`done`) when the call ends.
 *
 * Hand-written rather than connect-node's client because that one chains a dozen async
 * generators and a Node Readable iterator per call; before the JIT warms up (the first hundreds
 * of calls of a process) they cost about 0.5 ms per small call, which this listener-driven reader
 * does not (measured in bench/README.md, section mcp). A waiting caller is handed each message
 * from the stream's 'data' listener directly, and a unary caller from its 'end' listener: no
 * promise or event-loop hop in between.
 */
export class GrpcResponseReader<T = Uint8Array> implements AsyncIterableIterator<T> {
  #rawHeader: IncomingHttpHeaders = {};
  #rawTrailer: IncomingHttpHeaders = {};
  #header: Headers | undefined;
  #trailer: Headers | undefined;
  #headersArrived = false;
  /** The response was its HEADERS frame alone (END_STREAM set): gRPC's trailers-only form, whose header carries the status. */
  #trailersOnly = false;
  #headersWaiter: Settle<void> | undefined;
  readonly #stream: ClientHttp2Stream;
  readonly #options: ResponseReaderOptions;
  readonly #splitter: EnvelopeSplitter;
  readonly #call: CallSignal;
  readonly #decode: (message: Uint8Array) => T;
  /** A unary response: one message, handed over at the end, never paused. */
  readonly #unary: boolean;
  #queue: Uint8Array[] = [];
  #queueHead = 0;
  #queuedBytes = 0;
  #headerError: ConnectError | undefined;
  #error: ConnectError | undefined;
  #ended = false;
  #waiter: Settle<IteratorResult<T>> | undefined;
  #singleWaiter: Settle<T> | undefined;
  // Callbacks made in the constructor, unnamed: a named one per call costs a defineProperty where
  // the source runs through esbuild with keepNames (tsx).
  readonly #onMessage: (message: Uint8Array) => boolean;
  readonly #onAbort: (() => void) | undefined;

  constructor(
    stream: ClientHttp2Stream,
    call: CallSignal,
    options: ResponseReaderOptions,
    decode: (message: Uint8Array) => T,
    unary = false,
  ) {
    this.#stream = stream;
    this.#options = options;
    this.#call = call;
    this.#decode = decode;
    this.#unary = unary;
    this.#splitter = new EnvelopeSplitter(options.maxMessageBytes, options.recycler);
    this.#onMessage = (message) => this.#message(message);
    stream.on("response", (headers, flags) => this.#onResponse(headers, flags));
    stream.on("data", (chunk: Buffer) => this.#onData(chunk));
    stream.on("trailers", (trailers) => {
      this.#rawTrailer = trailers;
    });
    stream.on("end", () => this.#onEnd());
    stream.on("error", (err) => this.fail(connectErrorFromStream(err)));
    stream.on("close", () => this.#onClose());
    if (call.cancellable) {
      this.#onAbort = () => this.fail(ConnectError.from(call.signal.reason, Code.Canceled));
      call.signal.addEventListener("abort", this.#onAbort);
      if (call.signal.aborted) {
        this.#onAbort();
      }
    }
  }

  /**
   * header is the response header as Fetch Headers, built on first use: most callers never look,
   * and filling Headers (undici, validated per field) costs more than the rest of a small call's
   * response handling.
   */
  get header(): Headers {
    return (this.#header ??= toHeaders(this.#rawHeader));
  }

  /** trailer is the response trailer (complete once the messages are done), built on first use. */
  get trailer(): Headers {
    return (this.#trailer ??= toHeaders(this.#rawTrailer));
  }

  /** whenHeaders settles when the response headers have arrived, or rejects if the call failed before. */
  whenHeaders(): Promise<void> {
    if (this.#headersArrived) {
      return Promise.resolve();
    }
    if (this.#error !== undefined) {
      return Promise.reject(this.#error);
    }
    return new Promise((resolve, reject) => {
      this.#headersWaiter = { resolve, reject };
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * return cancels a call whose messages the caller stopped taking (a for-await left by break,
   * return or throw), so its stream does not stay open, paused, holding the server's side of it;
   * a call that has ended is left as it is.
   */
  return(): Promise<IteratorResult<T>> {
    this.fail(new ConnectError("the caller stopped reading the response", Code.Canceled));
    return Promise.resolve({ done: true, value: undefined });
  }

  /** next resolves with the next message, or done after an OK status. */
  next(): Promise<IteratorResult<T>> {
    if (this.#queueHead < this.#queue.length) {
      try {
        return Promise.resolve({ done: false, value: this.#take() });
      } catch (err) {
        this.fail(ConnectError.from(err));
        return Promise.reject(this.#error);
      }
    }
    if (this.#error !== undefined) {
      return Promise.reject(this.#error);
    }
    if (this.#ended) {
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** single resolves with the one message of a unary response (a reader made with `unary`) once it has ended OK. */
  single(): Promise<T> {
    if (this.#error !== undefined) {
      return Promise.reject(this.#error);
    }
    if (this.#ended) {
      return new Promise((resolve, reject) => this.#settleSingle({ resolve, reject }));
    }
    return new Promise((resolve, reject) => {
      this.#singleWaiter = { resolve, reject };
    });
  }

  /** fail ends the call with `error`, or with the call signal's reason if it was aborted (once): the stream is reset if still open. */
  fail(error: ConnectError): void {
    if (this.#error !== undefined || this.#ended) {
      return;
    }
    const signal = this.#call.signal;
    const failed = (this.#error = signal.aborted ? ConnectError.from(signal.reason, Code.Canceled) : error);
    // The caller hears first: nothing below may keep a failed call from ending.
    const headersWaiter = this.#headersWaiter;
    const waiter = this.#waiter;
    const singleWaiter = this.#singleWaiter;
    this.#headersWaiter = this.#waiter = this.#singleWaiter = undefined;
    headersWaiter?.reject(failed);
    waiter?.reject(failed);
    singleWaiter?.reject(failed);
    this.#finish();
    if (!this.#stream.closed) {
      try {
        this.#stream.close(
          failed.code === Code.Canceled || failed.code === Code.DeadlineExceeded
            ? constants.NGHTTP2_CANCEL
            : constants.NGHTTP2_INTERNAL_ERROR,
        );
      } catch {
        this.#stream.destroy(); // a session already torn down; the call has its error
      }
    }
  }

  #take(): T {
    const message = this.#queue[this.#queueHead]!;
    const value = this.#decode(message);
    this.#queue[this.#queueHead++] = undefined as unknown as Uint8Array;
    if (this.#queueHead === this.#queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    }
    this.#queuedBytes -= message.byteLength;
    if (this.#queuedBytes <= this.#options.highWaterBytes / 2 && this.#stream.isPaused() && !this.#ended) {
      this.#stream.resume();
    }
    return value;
  }

  #onResponse(headers: IncomingHttpHeaders, flags: number): void {
    this.#rawHeader = headers;
    this.#headersArrived = true;
    this.#trailersOnly = (flags & constants.NGHTTP2_FLAG_END_STREAM) !== 0;
    this.#options.onResponse?.(this.#stream);
    const contentType = headers["content-type"];
    const usual =
      (headers as { ":status"?: unknown })[":status"] === 200 &&
      typeof contentType === "string" &&
      contentType.startsWith("application/grpc") &&
      headers["grpc-status"] === undefined;
    if (!usual) {
      // Connect's own checks, for the rare response that is not a plain 200 gRPC one. A status in
      // the header counts only in the trailers-only form: a response with a body or a trailer
      // takes its status from the trailer (gRPC over HTTP/2, "Responses").
      try {
        const { headerError } = validateResponse(Number(headers[":status"] ?? 0), this.header);
        this.#headerError = this.#trailersOnly ? headerError : undefined;
      } catch (err) {
        this.fail(ConnectError.from(err));
      }
    }
    const headersWaiter = this.#headersWaiter;
    this.#headersWaiter = undefined;
    headersWaiter?.resolve();
  }

  #onData(chunk: Buffer): void {
    if (this.#error !== undefined) {
      return;
    }
    try {
      this.#splitter.push(chunk, this.#onMessage);
    } catch (err) {
      this.fail(ConnectError.from(err));
      return;
    }
    if (this.#queuedBytes > this.#options.highWaterBytes && !this.#unary) {
      this.#stream.pause();
    }
  }

  /**
   * message hands a waiting caller the decoded message, or queues its bytes; it returns true when
   * nothing refers to the bytes any more (decoded, and no view of them kept), so their buffer may
   * be filled again (BufferRecycler).
   */
  #message(message: Uint8Array): boolean {
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      const value = this.#decode(message); // a message that does not decode fails the call, waiter and all
      this.#waiter = undefined;
      waiter.resolve({ done: false, value });
      return !holdsView(value, message.buffer);
    }
    if (this.#unary && this.#queue.length > 0) {
      throw new ConnectError("protocol error: received extra output message for unary method", Code.Unimplemented);
    }
    this.#queuedBytes += message.byteLength;
    this.#queue.push(message);
    return false;
  }

  #onEnd(): void {
    try {
      if (this.#headerError !== undefined) {
        throw this.#headerError;
      }
      const status =
        this.#rawTrailer["grpc-status"] ?? (this.#trailersOnly ? this.#rawHeader["grpc-status"] : undefined);
      if (status !== "0") {
        validateTrailer(this.trailer, this.#trailersOnly ? this.header : withoutStatus(this.header));
      }
      if (this.#splitter.pendingBytes > 0) {
        throw new ConnectError(
          `protocol error: the response ended inside a message (${this.#splitter.pendingBytes} bytes)`,
          Code.Internal,
        );
      }
    } catch (err) {
      this.fail(ConnectError.from(err));
      return;
    }
    if (this.#error === undefined) {
      this.#ended = true;
      this.#finish();
      const waiter = this.#waiter;
      const singleWaiter = this.#singleWaiter;
      this.#waiter = this.#singleWaiter = undefined;
      waiter?.resolve({ done: true, value: undefined });
      if (singleWaiter !== undefined) {
        this.#settleSingle(singleWaiter);
      }
    }
  }

  #settleSingle(settle: Settle<T>): void {
    if (this.#queue.length === 0) {
      settle.reject(new ConnectError("protocol error: missing output message for unary method", Code.Unimplemented));
      return;
    }
    try {
      settle.resolve(this.#decode(this.#queue[0]!));
    } catch (err) {
      settle.reject(ConnectError.from(err));
    }
  }

  #onClose(): void {
    if (!this.#ended && this.#error === undefined) {
      this.fail(
        connectErrorFromResetCode(this.#stream.rstCode) ??
          new ConnectError("http/2 stream closed before the gRPC status", Code.Internal),
      );
    }
  }

  #finish(): void {
    if (this.#onAbort !== undefined) {
      this.#call.signal.removeEventListener("abort", this.#onAbort);
      this.#call.done();
    }
  }
}

/** withoutStatus is a response header without the gRPC status fields a trailer must carry instead. */
function withoutStatus(header: Headers): Headers {
  const copy = new Headers(header);
  copy.delete("grpc-status");
  copy.delete("grpc-message");
  copy.delete("grpc-status-details-bin");
  return copy;
}
