import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  createEndStreamSerialization,
  endStreamFlag,
  errorToJsonBytes,
} from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc-web";
import { requestIdOf } from "../policy/request-id-of.js";

/** RefusalOptions say how the connection is left and what else the answer carries. */
export interface RefusalOptions {
  /** The body is left unread: the connection is closed once the answer is out. */
  readonly close: boolean;
  /** More response headers (e.g. retry-after). */
  readonly headers?: Readonly<Record<string, string>>;
}

const endStream = createEndStreamSerialization(undefined);

/**
 * writeRefusal answers a request the HTTP listener refuses before connect-node serves it (auth,
 * receive budget, request target, oversize body), in the caller's protocol, so every client reads
 * the code and the ErrorInfo as if the handler had failed:
 * - gRPC-Web: trailers-only, HTTP 200 with grpc-status, grpc-message, grpc-status-details-bin;
 * - Connect streaming (application/connect+json or +proto): HTTP 200 and one end-stream envelope
 *   (flag 0b10) holding {"error": …}, as connect-es reads a failed stream;
 * - Connect unary and plain JSON: the code's HTTP status and the error JSON with its details.
 * Each answer carries the request's `x-request-id` (requestIdOf).
 */
export function writeRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  error: ConnectError,
  options: RefusalOptions,
): void {
  const headers: OutgoingHttpHeaders = { ...options.headers, "x-request-id": requestIdOf(req) };
  if (options.close) headers["connection"] = "close";
  const contentType = String(req.headers["content-type"] ?? "").toLowerCase();
  if (contentType.startsWith("application/grpc-web")) {
    headers["content-type"] = contentType.startsWith("application/grpc-web-text")
      ? "application/grpc-web-text+proto"
      : "application/grpc-web+proto";
    setTrailerStatus(new Headers(), error).forEach((value, key) => {
      headers[key] = value;
    });
    headers["content-length"] = 0;
    res.writeHead(200, headers);
    res.end();
    return;
  }
  let status: number;
  let body: Uint8Array;
  if (contentType.startsWith("application/connect+")) {
    status = 200;
    headers["content-type"] = contentType.startsWith("application/connect+proto")
      ? "application/connect+proto"
      : "application/connect+json";
    body = encodeEnvelope(endStreamFlag, endStream.serialize({ metadata: new Headers(), error }));
  } else {
    status = codeToHttpStatus(error.code);
    headers["content-type"] = "application/json";
    body = errorToJsonBytes(error, {});
  }
  headers["content-length"] = body.byteLength;
  res.writeHead(status, headers);
  res.end(body);
}
