import { constants, type OutgoingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { BoundedWriter } from "../grpc-js/bounded-writer.js";

/** endOfStreamBytes is how much a released answer may still write without waiting: its end of stream. */
const endOfStreamBytes = 64 * 1024;

/** drainCapBytes bounds what is read and thrown away of a request body its answer did not wait for. */
const drainCapBytes = 64 * 1024 * 1024;

/**
 * writeGrpcAnswer writes connect's answer to an HTTP/2 stream: the head after the first body
 * chunk (so the handler can still set headers), each chunk through `writer` (its bytes counted
 * against the send budgets until flushed, bounded-writer.ts), then the trailers (grpc-status); an answer without messages goes trailers-only.
 * It resolves with the message bytes written. Once `released()` (the handler ended its streamed
 * call itself), nothing waits for the client any more: the last messages, up to endOfStreamBytes,
 * and the trailers are queued and the answer is over, as on the HTTP listener
 * (http-response-writer.ts releaseResponse).
 * A client gone mid-answer is reported to the body's producer (the handler) as ABORTED.
 */
export async function writeGrpcAnswer(
  stream: ServerHttp2Stream,
  answer: UniversalServerResponse,
  extraHeaders: OutgoingHttpHeaders,
  writer: BoundedWriter,
  released: () => boolean,
): Promise<number> {
  let room = endOfStreamBytes;
  const it = answer.body?.[Symbol.asyncIterator]();
  let written = 0;
  try {
    let chunk = it === undefined ? undefined : await it.next();
    if (stream.destroyed || stream.closed) throw gone();
    if (chunk === undefined || chunk.done === true) {
      // No message: trailers-only, as grpc-js answers a failed call; a client still sending
      // (the handler failed before reading its whole request) is then asked to stop (NO_ERROR).
      stream.respond(
        { ":status": answer.status, ...nodeHeaders(answer.header), ...extraHeaders, ...nodeHeaders(answer.trailer) },
        { endStream: true },
      );
      if (!stream.readableEnded) stream.close(constants.NGHTTP2_NO_ERROR);
      return 0;
    }
    stream.respond(
      { ":status": answer.status, ...nodeHeaders(answer.header), ...extraHeaders },
      { waitForTrailers: true },
    );
    for (; chunk !== undefined && chunk.done !== true; chunk = await it!.next()) {
      if (stream.destroyed || stream.closed) {
        const error = gone();
        await it?.throw?.(error).catch(() => undefined);
        throw error;
      }
      // connect yields one enveloped message per chunk; its 5-byte prefix is not counted, as on grpc-js.
      written += chunk.value.byteLength - 5;
      const bytes = Buffer.from(chunk.value.buffer, chunk.value.byteOffset, chunk.value.byteLength);
      if (!released()) {
        await writer.write(bytes);
      } else if ((room -= bytes.byteLength) >= 0) {
        // Queued behind what the client has not read, without waiting: it gets every message
        // sent before the handler ended the call, then the status.
        stream.write(bytes);
      }
    }
    const trailers = nodeHeaders(answer.trailer);
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
    if (!released()) await sent;
  } finally {
    await it?.return?.().catch(() => undefined);
  }
  return written;
}

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

function gone(): ConnectError {
  return new ConnectError("the client closed the stream", Code.Aborted);
}

/** nodeHeaders is a Fetch Headers object as Node's outgoing headers. */
function nodeHeaders(headers: Headers | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  headers?.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
