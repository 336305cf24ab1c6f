import { constants, type ServerHttp2Stream } from "node:http2";
import type { HeadRefusal } from "./request-head-check.js";

const { NGHTTP2_NO_ERROR } = constants;

/**
 * refuseHead answers a stream whose headers the guard refused (grpc-js never sees it) with a
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

/**
 * refuse ends a stream with a gRPC status, as trailers after grpc-js's headers or trailers-only;
 * `reset`: a trailers-only answer is followed by RST_STREAM NO_ERROR (the client may still be
 * sending).
 */
export function refuse(stream: ServerHttp2Stream, code: number, message: string, reset = false): void {
  if (stream.closed || stream.destroyed) {
    return;
  }
  const status = { "grpc-status": String(code), "grpc-message": encodeURI(message) };
  if (!stream.headersSent) {
    stream.respond({ ":status": 200, "content-type": "application/grpc+proto", ...status }, { endStream: true });
    if (reset) stream.close(NGHTTP2_NO_ERROR);
    return;
  }
  // grpc-js sent its headers with waitForTrailers, so ending the stream asks for the trailers.
  // No reset after them: nghttp2 drops trailers still queued behind the stream's DATA when a
  // RST_STREAM follows. The stream stays counted until the client ends it, its DATA dropped.
  stream.once("wantTrailers", () => stream.sendTrailers(status));
  stream.end();
}
