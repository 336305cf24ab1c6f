import { constants, type OutgoingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { ConnectError } from "@connectrpc/connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";

/** drainCapBytes bounds what is read and thrown away of a request body its answer did not wait for. */
const drainCapBytes = 64 * 1024 * 1024;

/**
 * refuseGrpcStream answers a stream toolhost refuses before any handler runs (authentication,
 * an unknown method) trailers-only, with the error's code, message and details
 * (grpc-status-details-bin), then resets it with NO_ERROR, which asks the client to stop sending
 * its request (RFC 9113 8.1).
 */
export function refuseGrpcStream(stream: ServerHttp2Stream, error: ConnectError, headers: OutgoingHttpHeaders): void {
  if (stream.closed || stream.destroyed) return;
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc+proto",
      ...headers,
      ...nodeHeaders(setTrailerStatus(new Headers(), error)),
    },
    { endStream: true },
  );
  stream.close(constants.NGHTTP2_NO_ERROR);
}

/**
 * drainUnread reads and discards what the client still sends of a request whose answer is out
 * (a handler that failed before reading it all), so that the stream ends and is given back; past
 * drainCapBytes it is reset with NO_ERROR instead.
 */
export function drainUnread(stream: ServerHttp2Stream): void {
  if (stream.readableEnded || stream.destroyed) return;
  let drained = 0;
  stream.on("data", (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > drainCapBytes && !stream.closed) stream.close(constants.NGHTTP2_NO_ERROR);
  });
  stream.resume();
}

/** nodeHeaders is a Fetch Headers object as Node's outgoing headers. */
function nodeHeaders(headers: Headers | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  headers?.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
