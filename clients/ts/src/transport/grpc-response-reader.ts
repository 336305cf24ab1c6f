import { constants, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { validateResponse, validateTrailer } from "@connectrpc/connect/protocol-grpc";
import { EnvelopeSplitter } from "./grpc-envelope.js";
import { connectErrorFromStream, connectErrorFromResetCode } from "./http2-stream-error.js";

/** ResponseReaderOptions bound what a GrpcResponseReader holds. */
export interface ResponseReaderOptions {
  /** The largest message accepted. */
  readonly maxMessageBytes: number;
  /** Queued bytes past which the stream is paused until the caller takes messages. */
  readonly highWaterBytes: number;
}

/**
 * GrpcResponseReader reads one gRPC response from an HTTP/2 stream: its header, its messages (as
 * an async iterator of serialized messages, paused past a high-water mark so a slow consumer
 * holds the server back through HTTP/2 flow control) and its trailer, and turns a non-OK status,
 * a reset or a cancelled signal into a ConnectError.
 *
 * Hand-written rather than connect-node's client because that one chains a dozen async
 * generators and a Node Readable iterator per call; before the JIT warms up (the first hundreds
 * of calls of a process) they cost about 0.5 ms per small call, which this listener-driven reader
 * does not (measured in bench/README.md, section mcp).
 */
export class GrpcResponseReader implements AsyncIterator<Uint8Array> {
  #rawHeader: IncomingHttpHeaders = {};
  #rawTrailer: IncomingHttpHeaders = {};
  #header: Headers | undefined;
  #trailer: Headers | undefined;
  /** headers settles when the response headers have arrived, or the call failed before. */
  readonly headers: Promise<void>;
  #headersSettle: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  readonly #stream: ClientHttp2Stream;
  readonly #options: ResponseReaderOptions;
  readonly #splitter: EnvelopeSplitter;
  readonly #signal: AbortSignal;
  #queue: Uint8Array[] = [];
  #queueHead = 0;
  #queuedBytes = 0;
  #headerError: ConnectError | undefined;
  #error: ConnectError | undefined;
  #ended = false;
  #waiter: { resolve: (r: IteratorResult<Uint8Array>) => void; reject: (e: unknown) => void } | undefined;

  constructor(stream: ClientHttp2Stream, signal: AbortSignal, options: ResponseReaderOptions) {
    this.#stream = stream;
    this.#options = options;
    this.#signal = signal;
    this.#splitter = new EnvelopeSplitter(options.maxMessageBytes);
    this.headers = new Promise((resolve, reject) => {
      this.#headersSettle = { resolve, reject };
    });
    this.headers.catch(() => {}); // a unary call never awaits it; its failure is reported by next()
    stream.on("response", (headers) => this.#onResponse(headers));
    stream.on("data", (chunk: Buffer) => this.#onData(chunk));
    stream.on("trailers", (trailers) => {
      this.#rawTrailer = trailers;
    });
    stream.on("end", () => this.#onEnd());
    stream.on("error", (err) => this.fail(connectErrorFromStream(err)));
    stream.on("close", () => this.#onClose());
    signal.addEventListener("abort", this.#onAbort);
    if (signal.aborted) {
      this.#onAbort();
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

  /** next resolves with the next serialized message, or done after an OK status. */
  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#queueHead < this.#queue.length) {
      return Promise.resolve({ done: false, value: this.#take() });
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

  /** fail ends the call with `error` (once): the stream is reset if still open. */
  fail(error: ConnectError): void {
    if (this.#error !== undefined || this.#ended) {
      return;
    }
    this.#error = error;
    this.#finish();
    this.#headersSettle?.reject(error);
    if (!this.#stream.closed) {
      this.#stream.close(error.code === Code.Canceled ? constants.NGHTTP2_CANCEL : constants.NGHTTP2_INTERNAL_ERROR);
    }
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
  }

  #take(): Uint8Array {
    const message = this.#queue[this.#queueHead]!;
    this.#queue[this.#queueHead++] = undefined as unknown as Uint8Array;
    if (this.#queueHead === this.#queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    }
    this.#queuedBytes -= message.byteLength;
    if (this.#queuedBytes <= this.#options.highWaterBytes / 2 && this.#stream.isPaused() && !this.#ended) {
      this.#stream.resume();
    }
    return message;
  }

  #onResponse(headers: IncomingHttpHeaders): void {
    this.#rawHeader = headers;
    const contentType = headers["content-type"];
    const usual = (headers as { ":status"?: unknown })[":status"] === 200 && typeof contentType === "string" && contentType.startsWith("application/grpc") && headers["grpc-status"] === undefined;
    if (!usual) {
      // Connect's own checks, for the rare response that is not a plain 200 gRPC one.
      try {
        this.#headerError = validateResponse(Number(headers[":status"] ?? 0), this.header).headerError;
      } catch (err) {
        this.fail(ConnectError.from(err));
      }
    }
    this.#headersSettle?.resolve();
  }

  #onData(chunk: Buffer): void {
    if (this.#error !== undefined) {
      return;
    }
    try {
      this.#splitter.push(chunk, (message) => {
        this.#queuedBytes += message.byteLength;
        const waiter = this.#waiter;
        if (waiter !== undefined) {
          this.#waiter = undefined;
          this.#queuedBytes -= message.byteLength;
          waiter.resolve({ done: false, value: message });
        } else {
          this.#queue.push(message);
        }
      });
    } catch (err) {
      this.fail(ConnectError.from(err));
      return;
    }
    if (this.#queuedBytes > this.#options.highWaterBytes) {
      this.#stream.pause();
    }
  }

  #onEnd(): void {
    try {
      if (this.#headerError !== undefined) {
        throw this.#headerError;
      }
      if ((this.#rawTrailer["grpc-status"] ?? this.#rawHeader["grpc-status"]) !== "0") {
        validateTrailer(this.trailer, this.header);
      }
      if (this.#splitter.pendingBytes > 0) {
        throw new ConnectError(`protocol error: the response ended inside a message (${this.#splitter.pendingBytes} bytes)`, Code.Internal);
      }
    } catch (err) {
      this.fail(ConnectError.from(err));
      return;
    }
    if (this.#error === undefined) {
      this.#ended = true;
      this.#finish();
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.resolve({ done: true, value: undefined });
    }
  }

  #onClose(): void {
    if (!this.#ended && this.#error === undefined) {
      this.fail(connectErrorFromResetCode(this.#stream.rstCode) ?? new ConnectError("http/2 stream closed before the gRPC status", Code.Internal));
    }
  }

  readonly #onAbort = (): void => {
    this.fail(ConnectError.from(this.#signal.reason, Code.Canceled));
  };

  #finish(): void {
    this.#signal.removeEventListener("abort", this.#onAbort);
  }
}

/** toHeaders copies node:http2 headers (without pseudo-headers) into Fetch Headers. */
function toHeaders(from: IncomingHttpHeaders): Headers {
  const to = new Headers();
  for (const [key, value] of Object.entries(from)) {
    if (key.startsWith(":") || value === undefined) {
      continue;
    }
    if (Array.isArray(value)) {
      for (const v of value) to.append(key, v);
    } else {
      to.append(key, String(value));
    }
  }
  return to;
}
