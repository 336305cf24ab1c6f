import { constants, type ServerHttp2Stream } from "node:http2";
import type { HeadRefusal } from "./request-head-check.js";

const { NGHTTP2_NO_ERROR } = constants;

/**
 * refuseHead answers a stream whose headers the host refused (no handler sees it) with a
 * trailers-only response, then resets it with NO_ERROR: the client stops sending its request,
 * and the stream, counted nowhere, does not stay open.
 */
export function refuseHead(stream: ServerHttp2Stream, refusal: HeadRefusal): void {
  if (stream.closed || stream.destroyed) {
    return;
  }
  stream.respond(
    {
      ":status": refusal.httpStatus,
      "content-type": "application/grpc+proto",
      ...refusal.headers,
      "grpc-status": String(refusal.grpcStatus),
      "grpc-message": encodeURI(refusal.message),
    },
    { endStream: true },
  );
  stream.close(NGHTTP2_NO_ERROR);
}
