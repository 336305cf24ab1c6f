import { constants, type ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { StreamAccount } from "./grpc-stream-limits.js";

/** envelopeHeaderBytes is a gRPC message prefix: one flag byte and a four-byte length. */
const envelopeHeaderBytes = 5;

/**
 * grpcRequestBody is the request body of a client- or bidi-streaming call (a single-message one
 * is read by grpc-only-request.ts), through the stream's limits (grpc-stream-limits.ts): each
 * chunk is accounted before it is passed on; a message announcing more than `limit` bytes fails
 * with `tooLarge(size)` before its bytes are taken in; the end is checked, so a body cut inside a message fails (INVALID_ARGUMENT) instead of ending
 * cleanly. The receive clock runs only while this waits for the client. Left early (the handler
 * failed), the stream stays open so its answer can still be written.
 */
export async function* grpcRequestBody(
  stream: ServerHttp2Stream,
  account: StreamAccount,
  limit: number,
  tooLarge: (size: number) => Error,
): AsyncGenerator<Buffer> {
  const limits = account.limits;
  const chunks = stream.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head = Buffer.alloc(envelopeHeaderBytes);
  let headFilled = 0;
  let bodyLeft = 0;
  try {
    for (;;) {
      if (account.expecting) limits.wait(account);
      const next = await chunks.next();
      limits.stopWaiting(account);
      if (next.done === true) break;
      const chunk = next.value;
      const problem = account.push(chunk);
      if (problem !== undefined) throw new ConnectError(problem.message, problem.code);
      for (let at = 0; at < chunk.byteLength; ) {
        if (bodyLeft > 0) {
          const step = Math.min(bodyLeft, chunk.byteLength - at);
          bodyLeft -= step;
          at += step;
          continue;
        }
        const step = Math.min(envelopeHeaderBytes - headFilled, chunk.byteLength - at);
        chunk.copy(head, headFilled, at, at + step);
        headFilled += step;
        at += step;
        if (headFilled === envelopeHeaderBytes) {
          headFilled = 0;
          bodyLeft = head.readUInt32BE(1);
          if (bodyLeft > limit) throw tooLarge(bodyLeft);
        }
      }
      yield chunk;
    }
  } finally {
    limits.stopWaiting(account);
  }
  const problem = account.end();
  if (problem !== undefined) throw new ConnectError(problem.message, problem.code);
  if (!account.single && (await resetAfterEnd(stream))) {
    throw new ConnectError(
      "The client cancelled the stream before half-closing it; nothing was committed.",
      Code.Canceled,
    );
  }
}

/** endTurns is how many event-loop turns a stream's end waits for a reset that came with it. */
const endTurns = 3;

/**
 * resetAfterEnd tells whether a stream whose body ended was reset right after: a Node.js HTTP/2
 * client cancels with END_STREAM followed at once by RST_STREAM, and the end reaches the body
 * first. Taken as a half-close, a cancelled upload would be committed; a client that half-closes
 * and cancels later did finish sending. Only streamed requests wait (a single-request method's
 * answer is not a commit of what the client sent so far).
 */
async function resetAfterEnd(stream: ServerHttp2Stream): Promise<boolean> {
  for (let turn = 0; turn < endTurns; turn++) {
    if (stream.aborted || (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR)) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return stream.aborted || (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR);
}
