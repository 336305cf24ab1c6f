import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import {
  Code,
  ConnectError,
  createConnectRouter,
  createContextKey,
  type ContextValues,
  type Interceptor,
} from "@connectrpc/connect";
import { compressionGzip } from "@connectrpc/connect-node";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import type { Authenticator } from "../../auth/authenticator.js";
import { toConnectError } from "../../service/error-mapping.js";
import { oversizeRequestError } from "../grpc-js/explain-oversize-requests.js";
import type { CallRecord } from "../grpc-js/grpc-service-from-impl.js";
import { BoundedWriter } from "../grpc-js/bounded-writer.js";
import { checkRequestHead } from "../grpc-js/request-head-check.js";
import { ConnectionBudgets, SendBudget } from "../grpc-js/send-budget.js";
import type { sendLimits } from "../grpc-js/transport-limits.js";
import { refuseHead } from "../grpc-js/refuse-stream.js";
import type { HostedService } from "../grpc-server.js";
import { peerIdentityKey, peerValues } from "../peer-identity.js";
import { recordedNote } from "../recorded-note.js";
import { requestIdFrom } from "../request-id.js";
import { compressionDeflate } from "./deflate-compression.js";
import { drainUnread, refuseGrpcStream, writeGrpcAnswer } from "./grpc-stream-answer.js";
import { grpcRequestBody } from "./grpc-request-body.js";
import type { GrpcStreamLimits, StreamAccount } from "./grpc-stream-limits.js";

/** GrpcDispatchOptions configure how the node:http2 host serves its streams. */
export interface GrpcDispatchOptions {
  /** Every service the host answers, health and reflection included. */
  readonly services: readonly HostedService[];
  readonly maxReceiveMessageBytes: number;
  /** The send bounds (grpc-js/transport-limits.ts sendLimits), kept as on the grpc-js host. */
  readonly send: ReturnType<typeof sendLimits>;
  readonly shutdownSignal: AbortSignal;
  readonly streamLimits: GrpcStreamLimits;
  /** Checks the caller from the headers before anything of the body is read; health stays open. */
  readonly authenticator?: Authenticator | undefined;
  /**
   * Whether an answered call of a method path is recorded (onCallStart, onCallEnd): the toolhost
   * services' are, health and reflection not, as on grpc-js, so probes write no log lines.
   * A call refused by authentication is recorded whatever its method.
   */
  readonly recorded: (path: string) => boolean;
  readonly onCallEnd: (record: CallRecord) => void;
  readonly onCallStart?: ((method: string) => void) | undefined;
  /** Called as each admitted stream closes (its response, trailers included, has left). */
  readonly onStreamClosed?: (() => void) | undefined;
}

/** CallState is what the router's interceptor shares with the stream's writer and record. */
interface CallState {
  error?: ConnectError;
  /** Keeps the call's unflushed response bytes within its, its connection's and the process's budgets. */
  readonly writer: BoundedWriter;
  /** Set when the handler ended its streamed call itself (grpc-stream-answer.ts). */
  released: boolean;
  /** Stops the writer's waits: aborted when the stream closes or the answer is released. */
  readonly stop: AbortController;
}

const callStateKey = createContextKey<CallState | undefined>(undefined, { description: "toolhost node:http2 call" });

const { NGHTTP2_NO_ERROR } = constants;

/**
 * streamClosed is the abort reason of a stream that closed without a reset (its call is over):
 * one object, since an abort without a reason makes a DOMException, stack and all, per call
 * (2.7% of the host's CPU under ghz StatFile).
 */
const streamClosed = new ConnectError("the stream closed", Code.Canceled);

/**
 * grpcStreamDispatch serves each HTTP/2 stream of the node:http2 host with connect-node's router
 * through its public universal API, the gRPC protocol only: the stream is counted against its
 * connection's limits (or refused), its head checked (request-head-check.ts, as on grpc-js), its
 * method found (router.handlers), its caller authenticated from the headers (refused trailers-only
 * before any body byte is taken in), and then the universal request is built from the stream
 * with a body read through the limits (grpc-request-body.ts) and the answer written back
 * (grpc-stream-answer.ts). Each call ends in one CallRecord, the same shape the grpc-js host
 * writes, so logs and metrics do not tell the hosts apart.
 *
 * Request compression: gzip (connect-node's) and deflate are read, as on grpc-js; responses are
 * not compressed (compressMinBytes is out of reach), as on the grpc-js host.
 */
export function grpcStreamDispatch(
  options: GrpcDispatchOptions,
): (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void {
  const limit = options.maxReceiveMessageBytes;
  // A server stream reserves room for its next message before the handler makes it, so that a
  // client that does not read stops the handler from reading more of a file (bounded-writer.ts).
  const interceptor: Interceptor = (next) => async (req) => {
    const state = req.contextValues.get(callStateKey);
    try {
      // A server stream's one request is read here, before the handler runs, so that the room
      // each message reserves can follow the request (a ReadFile's chunk_size).
      let estimate: number | undefined;
      if (req.stream && req.method.methodKind === "server_streaming") {
        const first = await req.message[Symbol.asyncIterator]().next();
        estimate = options.send.estimateMessage(req.method, first.done === true ? undefined : first.value);
        req = { ...req, message: first.done === true ? noMessages() : oneMessage(first.value) };
      }
      const res = await next(req);
      if (!res.stream || state === undefined) return res;
      const body = res.message;
      // A handler that ends its call (a ConnectError other than a cancel as the abort reason,
      // WatchSkills fallen behind) ends it at once, even if the client stopped reading.
      const onAbort = () => {
        const reason: unknown = req.signal.reason;
        if (reason instanceof ConnectError && reason.code !== Code.Canceled && reason.code !== Code.Aborted) {
          state.released = true;
          state.stop.abort(streamClosed);
        }
      };
      req.signal.addEventListener("abort", onAbort, { once: true });
      async function* bounded() {
        const it = body[Symbol.asyncIterator]();
        try {
          for (;;) {
            if (estimate !== undefined) await state!.writer.reserve(estimate);
            const next = await it.next();
            if (next.done === true) return;
            yield next.value;
          }
        } catch (err) {
          state!.error = ConnectError.from(err);
          throw err;
        } finally {
          req.signal.removeEventListener("abort", onAbort);
          await it.return?.();
        }
      }
      return { ...res, message: bounded() };
    } catch (err) {
      if (state !== undefined) state.error = ConnectError.from(err);
      throw err;
    }
  };
  const router = createConnectRouter({
    grpc: true,
    grpcWeb: false,
    connect: false,
    acceptCompression: [compressionGzip, compressionDeflate],
    compressMinBytes: Number.MAX_SAFE_INTEGER,
    readMaxBytes: limit,
    shutdownSignal: options.shutdownSignal,
    interceptors: [interceptor],
  });
  for (const { service, impl } of options.services) router.service(service, impl);
  const paths = new Map<string, UniversalHandler>(router.handlers.map((handler) => [handler.requestPath, handler]));
  const { authenticator, onCallEnd, onCallStart, onStreamClosed, streamLimits } = options;
  const connectionBudgets = new ConnectionBudgets(options.send.maxPendingBytesPerConnection);
  const totalBudget = new SendBudget(options.send.maxPendingBytesTotal);
  const authenticates = authenticator !== undefined && authenticator.enabled;

  return (stream, headers) => {
    stream.on("error", ignore);
    const path = String(headers[":path"] ?? "");
    const head = checkRequestHead(headers);
    const account = streamLimits.admit(stream, path, "compressed" in head && head.compressed);
    if (account === undefined) return;
    stream.once("close", () => {
      account.close();
      onStreamClosed?.();
    });
    if ("httpStatus" in head) {
      refuseHead(stream, head);
      return;
    }
    const requestId = requestIdFrom(headers["x-request-id"]);
    const handler = paths.get(path);
    if (handler === undefined) {
      refuseGrpcStream(
        stream,
        new ConnectError(`The server does not implement the method ${path}`, Code.Unimplemented),
        { "x-request-id": requestId },
      );
      return;
    }
    const startedAt = process.hrtime.bigint();
    // Read now: once the session is gone its socket cannot be asked (ERR_HTTP2_SOCKET_UNBOUND).
    const socket = stream.session?.socket as Socket | undefined;
    const values = peerValues(socket);
    const peer = peerOf(socket);
    const record = (code: number, error: Error | undefined, bytesOut: number, note?: ReturnType<typeof recordedNote>) =>
      onCallEnd({
        method: path,
        peer,
        code,
        durationMs: Number(process.hrtime.bigint() - startedAt) / 1e6,
        bytesIn: account.messageBytes,
        bytesOut,
        requestId,
        error,
        ...note,
      });
    if (authenticates && !path.startsWith("/grpc.health.v1.")) {
      try {
        authenticator.authenticate({
          authorization: headers.authorization,
          certificateIdentity: values.get(peerIdentityKey),
        });
      } catch (err) {
        const error = toConnectError(err);
        refuseGrpcStream(stream, error, { "x-request-id": requestId });
        onCallStart?.(path);
        record(error.code, error, 0);
        return;
      }
    }
    const recorded = options.recorded(path);
    if (recorded) onCallStart?.(path);
    const stop = new AbortController();
    stream.once("close", () => stop.abort(streamClosed));
    const connectionBudget = connectionBudgets.acquire(peer);
    const state: CallState = {
      writer: new BoundedWriter(stream, options.send.maxPendingBytes, stop.signal, [connectionBudget, totalBudget]),
      released: false,
      stop,
    };
    values.set(callStateKey, state);
    const done = () => {
      state.writer.release();
      connectionBudgets.release(peer);
    };
    void serve(handler, stream, headers, path, values, requestId, account, state).then(
      ({ code, error, bytesOut }) => {
        done();
        if (recorded) record(code, state.error ?? error, bytesOut, recordedNote(values));
      },
      (reason: unknown) => {
        done();
        const error = ConnectError.from(reason);
        if (recorded) record(error.code === Code.Aborted ? Code.Canceled : error.code, error, 0, recordedNote(values));
      },
    );
  };

  async function serve(
    handler: UniversalHandler,
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    path: string,
    contextValues: ContextValues,
    requestId: string,
    account: StreamAccount,
    state: CallState,
  ): Promise<{ code: number; error: ConnectError | undefined; bytesOut: number }> {
    const abort = new AbortController();
    stream.once("close", () =>
      abort.abort(
        stream.rstCode === undefined || stream.rstCode === NGHTTP2_NO_ERROR
          ? streamClosed
          : new ConnectError(`the client reset the stream (HTTP/2 error code ${stream.rstCode})`, Code.Canceled),
      ),
    );
    const tooLarge = (size: number) => toConnectError(oversizeRequestError(path, size, limit));
    const answer = await handler({
      httpVersion: "2.0",
      method: "POST",
      // The authority is not the client's: the path is one of the router's own (looked up above),
      // and no handler reads the host, so a malformed :authority cannot make this URL throw.
      url: `http://localhost${path}`,
      header: webHeaders(headers),
      body: grpcRequestBody(stream, account, limit, tooLarge),
      signal: abort.signal,
      contextValues,
    });
    const bytesOut = await writeGrpcAnswer(
      stream,
      answer,
      { "x-request-id": requestId },
      state.writer,
      () => state.released,
    );
    drainUnread(stream);
    if (stream.rstCode !== undefined && stream.rstCode !== NGHTTP2_NO_ERROR) {
      return { code: Code.Canceled, error: undefined, bytesOut };
    }
    const error = answer.trailer === undefined ? undefined : findTrailerError(answer.trailer);
    return { code: error?.code ?? 0, error, bytesOut };
  }
}

function ignore(): void {}

async function* oneMessage<T>(message: T): AsyncGenerator<T> {
  yield message;
}

async function* noMessages<T>(): AsyncGenerator<T> {}

/**
 * webHeaders are a stream's request headers without the HTTP/2 pseudo-headers, as Fetch Headers.
 * The content type, checked to be gRPC protobuf (checkRequestHead, parameters allowed), is passed
 * on bare: connect's gRPC handler refuses parameters on it.
 */
function webHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers({ "content-type": "application/grpc+proto" });
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(":") || name === "content-type" || value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) out.append(name, one);
    else out.set(name, String(value));
  }
  return out;
}

/** peerOf names the client end of a connection as grpc-js does: "host:port", "[v6]:port". */
function peerOf(socket: Socket | undefined): string {
  if (socket?.remoteAddress === undefined) return "unknown";
  const host = socket.remoteFamily === "IPv6" ? `[${socket.remoteAddress}]` : socket.remoteAddress;
  return `${host}:${socket.remotePort}`;
}
