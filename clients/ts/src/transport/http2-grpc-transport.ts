import type { ClientHttp2Stream, OutgoingHttpHeaders } from "node:http2";
import {
  create,
  toBinary,
  type DescMessage,
  type DescMethodStreaming,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  createContextValues,
  type ContextValues,
  type Interceptor,
  type StreamRequest,
  type StreamResponse,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { BufferRecycler } from "./buffer-recycler.js";
import { callSignal, type CallSignal } from "./call-signal.js";
import { callOpener, codecFor, type SessionManager } from "./call-opener.js";
import { response } from "./call-response.js";
import { frameMessage } from "./grpc-envelope.js";
import { sendAll, sendSingle } from "./grpc-request-writer.js";
import { connectErrorFromStream } from "./http2-stream-error.js";
import { deadline, leanCalls, makeLeanCalls, type LeanCalls } from "./lean-calls.js";
import { checkedReadMaxBytes } from "./read-max-bytes.js";

/** Http2GrpcTransportOptions configure createHttp2GrpcTransport. */
export interface Http2GrpcTransportOptions {
  readonly baseUrl: string;
  /**
   * The node:http2 connection: a WideWindowSessionManager, or connect-node's Http2SessionManager
   * (anything with its `request` and `notifyResponseByteRead`).
   */
  readonly sessionManager: SessionManager;
  readonly interceptors?: Interceptor[];
  /** Headers sent on every call (e.g. authorization), set before any interceptor runs. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The largest response message accepted (defaultReadMaxBytes when unset): a longer one fails
   * the call with ResourceExhausted as soon as its 5-byte header arrives, before any of it is held.
   */
  readonly readMaxBytes?: number;
  /** Received messages queued past this many bytes pause the stream: 4 MiB when unset. */
  readonly highWaterBytes?: number;
}

type AnyMethod = DescMethodUnary | DescMethodStreaming;

/**
 * createHttp2GrpcTransport is a Connect Transport speaking the gRPC protocol (binary, no
 * compression) over node:http2, on a connection from connect-node's session manager, for
 * createClient from @connectrpc/connect (or createLeanClient). Interceptors, signals, timeouts
 * (also sent as grpc-timeout), headers, trailers and error details behave as with connect-node's
 * createGrpcTransport, whose status rules it reuses for any response that is not a plain success.
 * A call with one request message sends it with its headers in one go (HEADERS, then DATA with
 * END_STREAM); the response is read with stream listeners (GrpcResponseReader). Without
 * interceptors no Fetch Headers are built for the request at all, and the transport offers
 * createLeanClient its LeanCalls (lean-calls.ts), which skip Connect's request and response
 * objects.
 *
 * Why hand-written rather than connect-node's createGrpcTransport: on the same session manager,
 * connect-node's transport took 1.16-1.21x the wall time and 1.6-1.9x the client CPU of this one
 * for a 35 KB read and a 4 KB edit in a fresh process (a dozen nested async generators per call,
 * Fetch Headers, an AbortController aborted with a stack trace on every success), and 1.75x the
 * time of a 10 MB read (docs/adr/0005-client-transport.md). No maintained package offers a leaner
 * Connect transport; this one reuses connect-node's session manager and Connect's own status and
 * error-detail rules, so only the framing and the stream plumbing are ours.
 */
export function createHttp2GrpcTransport(options: Http2GrpcTransportOptions): Transport {
  const interceptors = options.interceptors ?? [];
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fixedHeaders: OutgoingHttpHeaders = {
    "content-type": "application/grpc+proto",
    te: "trailers",
    "user-agent": "toolhost-client-ts/0.1.0",
    ...options.headers,
  };
  const readerOptions = {
    maxMessageBytes: checkedReadMaxBytes(options.readMaxBytes),
    highWaterBytes: options.highWaterBytes ?? 4 * 1024 * 1024,
    // One spare message buffer per transport, up to 4 MiB (the server sends messages of <= 1 MiB).
    recycler: new BufferRecycler(4 * 1024 * 1024),
  };
  const sm = options.sessionManager;
  const open = callOpener(sm, {
    ...readerOptions,
    // The session's keep-alive wants to hear of received bytes; once per response is enough.
    onResponse: (stream) => sm.notifyResponseByteRead(stream),
  });

  /** headersFor builds a call's request headers, as node:http2 wants them. */
  function headersFor(header: Parameters<Transport["unary"]>[3], timeoutMs: number | undefined): OutgoingHttpHeaders {
    if (header === undefined && timeoutMs === undefined) {
      return fixedHeaders; // the session manager copies them into the request's own
    }
    const out: OutgoingHttpHeaders = { ...fixedHeaders };
    if (header !== undefined) {
      new Headers(header).forEach((value, key) => (out[key] = value));
    }
    if (timeoutMs !== undefined) {
      out["grpc-timeout"] = `${Math.max(0, Math.ceil(timeoutMs))}m`;
    }
    return out;
  }

  /** intercepted runs `next` through the interceptors, with the request's headers as Fetch Headers. */
  function intercepted<Req extends UnaryRequest | StreamRequest, Res>(
    req: Req,
    next: (req: Req, headers: OutgoingHttpHeaders) => Promise<Res>,
  ): Promise<Res> {
    let chain = async (r: Req) => next(r, nodeHeaders(r.header)) as Promise<unknown>;
    for (const interceptor of [...interceptors].reverse()) {
      chain = interceptor(chain as never) as never;
    }
    return chain(req) as Promise<Res>;
  }

  function request<M extends AnyMethod>(
    method: M,
    signal: AbortSignal,
    headers: OutgoingHttpHeaders,
    contextValues: ContextValues | undefined,
  ) {
    return {
      service: method.parent,
      method,
      requestMethod: "POST",
      url: `${baseUrl}/${method.parent.typeName}/${method.name}`,
      // Only interceptors look at a request's Fetch Headers; without any, none are built.
      header:
        interceptors.length === 0 ? (undefined as unknown as Headers) : new Headers(headers as Record<string, string>),
      contextValues: contextValues ?? createContextValues(),
      signal,
    };
  }

  const transport: Transport & { [leanCalls]?: LeanCalls } = {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      callerSignal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: Parameters<Transport["unary"]>[3],
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      timeoutMs = deadline(timeoutMs);
      const signal = callSignal(callerSignal, timeoutMs);
      const headers = headersFor(header, timeoutMs);
      const codec = codecFor(method);
      const next = async (req: UnaryRequest<I, O>, reqHeaders: OutgoingHttpHeaders): Promise<UnaryResponse<I, O>> => {
        const body = frameMessage(toBinary(method.input, req.message));
        const reader = await open(
          pathOf(req.url, method),
          reqHeaders,
          withSignal(signal, req.signal),
          codec.decode,
          true,
          body,
        );
        const message = await reader.single();
        return response(reader, { stream: false, service: method.parent, method, message });
      };
      try {
        const req: UnaryRequest<I, O> = {
          ...request(method, signal.signal, headers, contextValues),
          stream: false,
          message: create(method.input, input),
        };
        return interceptors.length === 0 ? await next(req, headers) : await intercepted(req, next);
      } catch (err) {
        throw signal.error(err);
      }
    },

    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      callerSignal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: Parameters<Transport["unary"]>[3],
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      timeoutMs = deadline(timeoutMs);
      const signal = callSignal(callerSignal, timeoutMs);
      const headers = headersFor(header, timeoutMs);
      const codec = codecFor(method);
      const next = async (req: StreamRequest<I, O>, reqHeaders: OutgoingHttpHeaders): Promise<StreamResponse<I, O>> => {
        const send = method.methodKind === "server_streaming" ? sendSingle : sendAll;
        const reader = await open(
          pathOf(req.url, method),
          reqHeaders,
          withSignal(signal, req.signal),
          codec.decode,
          false,
          (stream, r) => {
            send(stream, req.message, method.input).catch((err: unknown) => r.fail(connectErrorFromStream(err)));
          },
        );
        await reader.whenHeaders();
        const messages: AsyncIterable<MessageShape<O>> = {
          // The reader's return() cancels the call when a caller stops iterating early (break).
          [Symbol.asyncIterator]: () => reader,
        };
        return response(reader, { stream: true, service: method.parent, method, message: messages });
      };
      // sendSingle and sendAll create() each message; interceptors see them created already.
      const messages =
        interceptors.length === 0 ? (input as AsyncIterable<MessageShape<I>>) : normalized(method.input, input);
      const req: StreamRequest<I, O> = {
        ...request(method, signal.signal, headers, contextValues),
        stream: true,
        message: messages,
      };
      try {
        return interceptors.length === 0 ? await next(req, headers) : await intercepted(req, next);
      } catch (err) {
        throw signal.error(err);
      }
    },
  };
  if (interceptors.length === 0) {
    transport[leanCalls] = makeLeanCalls(open, headersFor);
  }
  return transport;
}

/**
 * withSignal is the call signal, followed as well as the request's signal if an interceptor
 * replaced it: the call's own deadline and the caller's signal still end the call.
 */
function withSignal(call: CallSignal, signal: AbortSignal): CallSignal {
  return signal === call.signal ? call : { ...call, signal: AbortSignal.any([call.signal, signal]), cancellable: true };
}

/** pathOf is the HTTP path of a call: the method's, unless an interceptor changed the URL. */
function pathOf(url: string, method: AnyMethod): string {
  const path = `/${method.parent.typeName}/${method.name}`;
  if (url.endsWith(path)) {
    return path;
  }
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** normalized turns each request message given as an init object into a message. */
function normalized<I extends DescMessage>(
  schema: I,
  input: AsyncIterable<MessageInitShape<I>>,
): AsyncIterable<MessageShape<I>> {
  return {
    async *[Symbol.asyncIterator]() {
      for await (const message of input) {
        yield create(schema, message);
      }
    },
  };
}

/** nodeHeaders turns Fetch Headers into node:http2 request headers. */
function nodeHeaders(header: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  header.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
