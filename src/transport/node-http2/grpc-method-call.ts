import { constants, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { BoundedWriter } from "../grpc/bounded-writer.js";
import { frameMessage } from "../grpc/frame-message.js";
import { acceptedEncodings } from "../grpc/request-head-check.js";
import type { HostedService } from "../hosted-service.js";
import { encodedReplyOf } from "../../service/reply-encoded-ahead.js";
import { drainUnread } from "./grpc-stream-answer.js";
import { type AbortWatcher, StreamHandlerContext } from "./stream-handler-context.js";

/** HostedMethod is one method the host answers: its descriptors and the ServiceImpl's function. */
export interface HostedMethod {
  readonly service: DescService;
  readonly method: DescMethod;
  readonly impl: (input: unknown, context: HandlerContext) => unknown;
}

/** hostedMethodsByPath maps each "/package.Service/Method" path of the services to its method. */
export function hostedMethodsByPath(services: readonly HostedService[]): Map<string, HostedMethod> {
  const out = new Map<string, HostedMethod>();
  for (const { service, impl } of services) {
    for (const method of service.methods) {
      const fn = (impl as unknown as Record<string, HostedMethod["impl"] | undefined>)[method.localName];
      if (typeof fn !== "function") continue;
      out.set(`/${service.typeName}/${method.name}`, {
        service,
        method,
        impl: (input, ctx) => fn.call(impl, input, ctx),
      });
    }
  }
  return out;
}

/** CallIo is what one call reads and writes through: its request messages and its send budgets. */
export interface CallIo extends AbortWatcher {
  /** The request messages of a client- or bidi-streaming call. */
  requests(): AsyncIterable<unknown>;
  /** The one request message of a unary or server-streaming call. */
  onlyRequest(): Promise<unknown>;
  readonly writer: BoundedWriter;
  /** Set when the handler ended its streamed call itself; nothing waits for the client then. */
  released(): boolean;
  /** The room a server stream reserves before each message, from its request. */
  estimate(request: unknown): number | undefined;
}

/** CallOutcome is how a call ended, for its CallRecord. */
export interface CallOutcome {
  readonly code: number;
  readonly error: ConnectError | undefined;
  readonly bytesOut: number;
}

/** endOfStreamBytes is how much a released answer may still write without waiting: its end of stream. */
const endOfStreamBytes = 64 * 1024;

/** maxTimeoutMs bounds grpc-timeout (connect's gRPC handler has no bound by default either). */
const maxTimeoutMs = 2 ** 31 - 1;

const { NGHTTP2_NO_ERROR } = constants;

/**
 * serveGrpcCall runs one gRPC call of `hosted` on an admitted, authenticated stream with
 * toolhost's own framing, not connect's router: the request messages come decoded (io), the
 * ServiceImpl method is called with a StreamHandlerContext (stream-handler-context.ts: signal and
 * headers made only when a handler uses them), and each reply is framed by frameMessage (the
 * message-codec.ts fast paths: a frozen reply encoded once, file chunks framed in their headroom)
 * and written through the send budgets. The answer ends with trailers (grpc-status,
 * grpc-message, grpc-status-details-bin with the error's details), trailers-only when no message
 * went out and the handler set no response header. A client gone mid-answer ends the call ABORTED.
 * A call whose grpc-timeout passes is answered DEADLINE_EXCEEDED then, its handler heeding its
 * signal or not; the handler runs on to its end, and what it sends after is dropped.
 */
export async function serveGrpcCall(
  hosted: HostedMethod,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  path: string,
  contextValues: ContextValues,
  extraHeaders: OutgoingHttpHeaders,
  shutdownSignal: AbortSignal,
  io: CallIo,
): Promise<CallOutcome> {
  const { method } = hosted;
  const timeout = parseTimeout(headerValue(headers["grpc-timeout"]), maxTimeoutMs);
  const context = new StreamHandlerContext(
    hosted.service,
    method,
    contextValues,
    stream,
    headers,
    path,
    timeout.timeoutMs,
    shutdownSignal,
    io,
  );
  const answer = new Answer(stream, context, extraHeaders, io);
  let error: ConnectError | undefined;
  try {
    if (timeout.error !== undefined) throw timeout.error;
    const work = callMethod(hosted, context, answer, io);
    if (context.deadline !== undefined) {
      // At the deadline the answer ends DEADLINE_EXCEEDED, whether the handler heeds its signal
      // or not; what it sends after is dropped (Answer.close) and its late outcome ignored.
      work.catch(() => undefined);
      await Promise.race([work, context.deadline]);
    } else {
      await work;
    }
  } catch (err) {
    error = ConnectError.from(err);
  } finally {
    answer.close();
    context.end();
  }
  await answer.end(error);
  drainUnread(stream);
  if (stream.rstCode !== undefined && stream.rstCode !== NGHTTP2_NO_ERROR && error?.code !== Code.DeadlineExceeded) {
    return { code: Code.Canceled, error: undefined, bytesOut: answer.bytesOut };
  }
  return { code: error?.code ?? 0, error, bytesOut: answer.bytesOut };
}

/** callMethod runs the handler of one call and writes its replies through `answer`. */
async function callMethod(
  hosted: HostedMethod,
  context: StreamHandlerContext,
  answer: Answer,
  io: CallIo,
): Promise<void> {
  switch (hosted.method.methodKind) {
    case "unary":
      await answer.message(await hosted.impl(await io.onlyRequest(), context));
      break;
    case "client_streaming":
      await answer.message(await hosted.impl(io.requests(), context));
      break;
    case "server_streaming": {
      const input = await io.onlyRequest();
      await answer.messages(hosted.impl(input, context) as AsyncIterable<unknown>, io.estimate(input));
      break;
    }
    case "bidi_streaming":
      await answer.messages(hosted.impl(io.requests(), context) as AsyncIterable<unknown>, undefined);
      break;
  }
}

/** Answer writes one call's response: its head with the first message, the messages, its trailers. */
class Answer {
  bytesOut = 0;
  #headSent = false;
  #room = endOfStreamBytes;
  #closed = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly context: StreamHandlerContext,
    private readonly extraHeaders: OutgoingHttpHeaders,
    private readonly io: CallIo,
  ) {}

  /** close stops the handler's writes: the call's outcome is settled (at its deadline, a late reply is dropped). */
  close(): void {
    this.#closed = true;
  }

  /** message writes the one reply of a unary or client-streaming call. */
  async message(value: unknown): Promise<void> {
    const frozen = Object.isFrozen(value) ? frozenFrames.get(value as object) : undefined;
    if (frozen !== undefined) {
      await this.#write(frozen, undefined);
      return;
    }
    const { frame, chunk } = frameMessage(this.context.method.output, value);
    // A frozen reply cannot change (ListTools answers the same one every call), nor its frame;
    // the stream only reads what it is given. A reply encoded ahead (sendEncoded: every StatFile
    // and ListDirectory answer, frozen too) is framed in place and never sent twice: kept here,
    // each would be one more entry of the weak map for the collector.
    if (chunk === undefined && Object.isFrozen(value) && encodedReplyOf(value) === undefined) {
      frozenFrames.set(value as object, frame);
    }
    await this.#write(frame, chunk);
  }

  /** messages writes a server stream, reserving `estimate` bytes before asking for each message. */
  async messages(replies: AsyncIterable<unknown>, estimate: number | undefined): Promise<void> {
    const it = replies[Symbol.asyncIterator]();
    const output = this.context.method.output;
    try {
      for (;;) {
        if (estimate !== undefined && !this.io.released()) await this.io.writer.reserve(estimate);
        const next = await it.next();
        if (next.done === true) return;
        const { frame, chunk } = frameMessage(output, next.value);
        await this.#write(frame, chunk);
      }
    } finally {
      await it.return?.();
    }
  }

  /** end sends the status: trailers after the messages, or trailers-only when none went out. */
  async end(error: ConnectError | undefined): Promise<void> {
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return;
    const set = this.context.responseTrailerIfSet;
    const trailers = error === undefined && (set === undefined || isEmpty(set)) ? okTrailers : this.#trailers(error);
    const headerSet = this.context.responseHeaderIfSet;
    if (!this.#headSent && (headerSet === undefined || isEmpty(headerSet))) {
      // No message: trailers-only, as grpc-js answers a failed call; a client still sending
      // (the handler failed before reading its whole request) is then asked to stop (NO_ERROR).
      stream.respond({ ...this.#head(), ...trailers }, { endStream: true });
      if (!stream.readableEnded) stream.close(NGHTTP2_NO_ERROR);
      return;
    }
    if (!this.#headSent) {
      // No message, but response headers the handler set: their own HEADERS frame, then the
      // trailers, as grpc-go answers. Clients (grpc-go's among them) read a trailers-only
      // answer's metadata as trailers alone, so merged in, the handler's headers were lost.
      this.#headSent = true;
      stream.respond(this.#head(), { waitForTrailers: true });
    }
    const sent = new Promise<void>((resolve) => {
      stream.once("wantTrailers", () => {
        if (!stream.destroyed) stream.sendTrailers(trailers);
        resolve();
      });
      stream.once("close", resolve);
      stream.end();
    });
    // A released answer's trailers wait behind DATA the client may never read: the call is over
    // for the server now, and the trailers go when the client reads on.
    if (!this.io.released()) await sent;
  }

  #trailers(error: ConnectError | undefined): OutgoingHttpHeaders {
    const trailer = new Headers(this.context.responseTrailerIfSet);
    error?.metadata.forEach((value, key) => {
      if (!key.startsWith("grpc-")) trailer.set(key, value);
    });
    return nodeHeaders(setTrailerStatus(trailer, error));
  }

  async #write(frame: Buffer, chunk: Uint8Array | undefined): Promise<void> {
    const stream = this.stream;
    if (this.#closed) throw new ConnectError("the call ended before this message", Code.DeadlineExceeded);
    if (stream.destroyed || stream.closed) throw new ConnectError("the client closed the stream", Code.Aborted);
    if (!this.#headSent) {
      this.#headSent = true;
      stream.respond(this.#head(), { waitForTrailers: true });
    }
    this.bytesOut += frame.byteLength - 5;
    if (!this.io.released()) {
      await this.io.writer.write(frame, chunk);
    } else if ((this.#room -= frame.byteLength) >= 0) {
      // Queued behind what the client has not read, without waiting: it gets every message
      // sent before the handler ended the call, then the status.
      stream.write(frame);
    }
  }

  #head(): OutgoingHttpHeaders {
    const set = this.context.responseHeaderIfSet;
    return {
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-accept-encoding": acceptedEncodings,
      ...(set === undefined ? undefined : nodeHeaders(set)),
      ...this.extraHeaders,
    };
  }
}

/** frozenFrames are the frames of frozen replies, made once. */
const frozenFrames = new WeakMap<object, Buffer>();

/** okTrailers end a call that succeeded and set no trailers of its own. */
const okTrailers: OutgoingHttpHeaders = Object.freeze({ "grpc-status": "0" });

function isEmpty(headers: Headers): boolean {
  return headers.keys().next().done === true;
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** nodeHeaders is a Fetch Headers object as Node's outgoing headers. */
function nodeHeaders(headers: Headers | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  headers?.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
