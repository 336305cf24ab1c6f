import { randomUUID } from "node:crypto";
import type { Http2Server, IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { status as grpcStatus, type Server } from "@grpc/grpc-js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { toConnectError } from "../../service/error-mapping.js";
import type { CallRecord } from "./grpc-service-from-impl.js";
import { statusFromError } from "./status-from-error.js";

const grpcJsMessage = /^Received message larger than max \((\d+) vs\.? (\d+)\)/;

/**
 * oversizeRequestError is the error a request message over the receive limit gets: TOO_LARGE,
 * with the sizes, and what to do instead.
 */
export function oversizeRequestError(method: string, size: number | undefined, limit: number): ToolhostError {
  const what = size === undefined ? "The request message is" : `The request message is ${size} bytes,`;
  return new ToolhostError(
    "TOO_LARGE",
    `${what} over this server's limit of ${limit} bytes per message (limits.max_receive_message_bytes) for ${method}; ${
      method.endsWith("/UploadFile") ? "send the data in smaller chunks" : "send large content with UploadFile, in chunks"
    }.`,
    { ...(size === undefined ? {} : { size: String(size) }), limit: String(limit) },
  );
}

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
 * Like widenFlowControl, this reaches grpc-js's http2 servers through a private map; if that
 * changes, the bare status is what clients get.
 */
export function explainOversizeRequests(
  server: Server,
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
  const servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  if (!(servers instanceof Map)) {
    return correct;
  }
  for (const http2Server of servers.keys()) {
    http2Server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
      const startedAt = process.hrtime.bigint();
      const method = String(headers[":path"] ?? "");
      const explain = (out: OutgoingHttpHeaders): { headers: OutgoingHttpHeaders; error?: Error } => {
        if (Number(out["grpc-status"]) !== grpcStatus.RESOURCE_EXHAUSTED || out["grpc-status-details-bin"] !== undefined) {
          return { headers: out };
        }
        const match = grpcJsMessage.exec(decodeURIComponent(String(out["grpc-message"] ?? "")));
        if (!match) {
          return { headers: out };
        }
        const error = toConnectError(oversizeRequestError(method, Number(match[1]), limit));
        const status = statusFromError(error);
        return { headers: { ...out, "grpc-message": encodeURIComponent(status.details), ...status.metadata.toHttp2Headers() }, error };
      };
      const respond = stream.respond.bind(stream);
      stream.respond = (out?: OutgoingHttpHeaders, options?: Parameters<ServerHttp2Stream["respond"]>[1]) => {
        const explained = explain(out ?? {});
        respond(explained.headers, options);
        if (explained.error) {
          const socket = stream.session?.socket;
          const sent = headers["x-request-id"];
          onCallStart?.(method);
          onCallEnd({
            method,
            peer: socket?.remoteAddress === undefined ? "unknown" : `${socket.remoteAddress}:${socket.remotePort}`,
            code: grpcStatus.RESOURCE_EXHAUSTED,
            durationMs: Number(process.hrtime.bigint() - startedAt) / 1e6,
            bytesIn: 0,
            bytesOut: 0,
            requestId: typeof sent === "string" && sent !== "" ? sent : randomUUID(),
            error: explained.error,
          });
        }
      };
      const sendTrailers = stream.sendTrailers.bind(stream);
      stream.sendTrailers = (out: OutgoingHttpHeaders) => {
        const explained = explain(out);
        // The handler sent its headers (with the request id) as it started, before this listener
        // ran: Node keeps them as sentHeaders.
        const id = stream.sentHeaders["x-request-id"];
        if (explained.error && typeof id === "string") {
          corrections.set(id, explained.error);
          // Bounded: dropped if the handler's record never comes.
          setTimeout(() => corrections.delete(id), 60_000).unref();
        }
        sendTrailers(explained.headers);
      };
    });
  }
  return correct;
}
