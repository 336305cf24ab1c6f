import type { Http2Server, IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { status as grpcStatus } from "@grpc/grpc-js";
import { toConnectError } from "../../service/error-mapping.js";
import type { CallRecord } from "../call-record.js";
import { oversizeRequestError } from "../oversize-request-error.js";
import { statusFromError } from "./status-from-error.js";
import { requestIdFrom } from "../request-id.js";

const grpcJsMessage = /^Received message larger than max \((\d+) vs\.? (\d+)\)/;

/**
 * explainOversizeRequests makes a request message over the receive limit fail like every other
 * error: TOO_LARGE with an ErrorInfo and a message that says what to do, and one call record
 * (log line, metrics).
 *
 * grpc-js rejects such a message itself, below its interceptors, with a bare RESOURCE_EXHAUSTED
 * ("Received message larger than max") and before the handler runs, so neither the adapter nor
 * an interceptor sees it. What grpc-js writes is rewritten on the HTTP/2 stream instead: its
 * trailers-only response (unary and server-streaming calls, whose handler never started) gets the
 * details and a call record; its trailers (a client stream whose handler runs, and records the
 * call itself) get the details, and the returned function corrects the handler's record.
 * Like widenFlowControl, this is put in place on grpc-js's http2 servers (http2ServersOf).
 */
export function explainOversizeRequests(
  servers: readonly Http2Server[],
  limit: number,
  onCallEnd: (record: CallRecord) => void,
  onCallStart?: (method: string) => void,
): (record: CallRecord) => CallRecord {
  // A client stream's handler runs and records the call itself, as CANCELLED (grpc-js ends it
  // under the handler); its record is corrected by request id, which the handler sent in the
  // response headers before the oversize message arrived.
  const corrections = new Map<string, Error>();
  const correct = (record: CallRecord): CallRecord => {
    const error = corrections.get(record.requestId);
    if (error === undefined) {
      return record;
    }
    corrections.delete(record.requestId);
    return { ...record, code: grpcStatus.RESOURCE_EXHAUSTED, error };
  };
  const explainer: Explainer = { limit, onCallEnd, onCallStart, corrections };
  for (const http2Server of servers) {
    serverExplainers.set(http2Server, explainer);
    http2Server.on("stream", watchForOversize);
  }
  return correct;
}

/** Explainer is what one grpc-js server's streams need to explain an oversize request. */
interface Explainer {
  readonly limit: number;
  readonly onCallEnd: (record: CallRecord) => void;
  readonly onCallStart: ((method: string) => void) | undefined;
  readonly corrections: Map<string, Error>;
}

/** OversizeWatch is what a watched stream carries: its server's explainer, request headers and start. */
interface OversizeWatch {
  [explainerKey]?: Explainer;
  [headersKey]?: IncomingHttpHeaders;
  [startedAtKey]?: number;
}

const explainerKey = Symbol("oversizeExplainer");
const headersKey = Symbol("oversizeRequestHeaders");
const startedAtKey = Symbol("oversizeStartedAt");
const serverExplainers = new WeakMap<Http2Server, Explainer>();

/**
 * watchForOversize is the 'stream' listener of every grpc-js http2 server: it marks the stream
 * and puts the two shared functions below in place of its respond and sendTrailers. No closure
 * or bound function per stream: per-stream closures kept every call's objects alive across young
 * collections, and with the stream guard's they made V8 promote them (a unary benchmark's GC
 * time doubled).
 */
function watchForOversize(
  this: Http2Server,
  stream: ServerHttp2Stream & OversizeWatch,
  headers: IncomingHttpHeaders,
): void {
  const explainer = serverExplainers.get(this);
  if (explainer === undefined) {
    return;
  }
  stream[explainerKey] = explainer;
  stream[headersKey] = headers;
  stream[startedAtKey] = performance.now();
  stream.respond = respondExplained;
  stream.sendTrailers = sendTrailersExplained;
}

/** explain rewrites grpc-js's bare oversize status into TOO_LARGE with details; anything else passes. */
function explain(stream: OversizeWatch, out: OutgoingHttpHeaders): { headers: OutgoingHttpHeaders; error?: Error } {
  if (Number(out["grpc-status"]) !== grpcStatus.RESOURCE_EXHAUSTED || out["grpc-status-details-bin"] !== undefined) {
    return { headers: out };
  }
  const match = grpcJsMessage.exec(decodeURIComponent(String(out["grpc-message"] ?? "")));
  if (!match) {
    return { headers: out };
  }
  const error = toConnectError(oversizeRequestError(methodOf(stream), Number(match[1]), stream[explainerKey]!.limit));
  const status = statusFromError(error);
  return {
    headers: { ...out, "grpc-message": encodeURIComponent(status.details), ...status.metadata.toHttp2Headers() },
    error,
  };
}

/** respondExplained is a watched stream's respond: grpc-js's trailers-only oversize answer explained and recorded. */
function respondExplained(
  this: ServerHttp2Stream & OversizeWatch,
  out?: OutgoingHttpHeaders,
  options?: Parameters<ServerHttp2Stream["respond"]>[1],
): void {
  const respond = Object.getPrototypeOf(this).respond as ServerHttp2Stream["respond"];
  if (out === undefined || out["grpc-status"] === undefined) {
    respond.call(this, out, options); // the usual response headers: nothing to explain
    return;
  }
  const explained = explain(this, out);
  respond.call(this, explained.headers, options);
  const explainer = this[explainerKey];
  if (explained.error && explainer !== undefined) {
    const socket = this.session?.socket;
    const method = methodOf(this);
    explainer.onCallStart?.(method);
    explainer.onCallEnd({
      method,
      peer: socket?.remoteAddress === undefined ? "unknown" : `${socket.remoteAddress}:${socket.remotePort}`,
      code: grpcStatus.RESOURCE_EXHAUSTED,
      durationMs: performance.now() - (this[startedAtKey] ?? performance.now()),
      bytesIn: 0,
      bytesOut: 0,
      requestId: requestIdOf(this),
      error: explained.error,
    });
  }
}

/** sendTrailersExplained is a watched stream's sendTrailers: a client stream's oversize status explained. */
function sendTrailersExplained(this: ServerHttp2Stream & OversizeWatch, out: OutgoingHttpHeaders): void {
  const sendTrailers = Object.getPrototypeOf(this).sendTrailers as ServerHttp2Stream["sendTrailers"];
  if (Number(out["grpc-status"]) === grpcStatus.OK) {
    sendTrailers.call(this, out);
    return;
  }
  const explained = explain(this, out);
  // The handler sent its headers (with the request id) as it started, before this listener
  // ran: Node keeps them as sentHeaders.
  const id = this.sentHeaders["x-request-id"];
  const explainer = this[explainerKey];
  if (explained.error && typeof id === "string" && explainer !== undefined) {
    explainer.corrections.set(id, explained.error);
    // Bounded: dropped if the handler's record never comes.
    setTimeout(() => explainer.corrections.delete(id), 60_000).unref();
  }
  sendTrailers.call(this, explained.headers);
}

/** methodOf is the method path a watched stream asked for. */
function methodOf(stream: OversizeWatch): string {
  return String(stream[headersKey]?.[":path"] ?? "");
}

/** requestIdOf is the x-request-id a refused call sent, or a new one. */
function requestIdOf(stream: OversizeWatch): string {
  return requestIdFrom(stream[headersKey]?.["x-request-id"]);
}
