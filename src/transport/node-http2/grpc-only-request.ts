import type { ServerHttp2Stream } from "node:http2";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeRequest } from "../grpc/decode-request.js";
import { unpack } from "./grpc-request-messages.js";
import type { StreamAccount } from "./grpc-stream-limits.js";

/** envelopeHeaderBytes is a gRPC message prefix: one flag byte and a four-byte length. */
const envelopeHeaderBytes = 5;

/** OnlyRequestBounds are what reading a single-message body needs besides the stream. */
export interface OnlyRequestBounds {
  readonly account: StreamAccount;
  /** The largest message accepted (maxReceiveMessageBytes), compressed or not. */
  readonly limit: number;
  /** The error of a message that announces `size` bytes, over the limit. */
  tooLarge(size: number): Error;
  /** The call's grpc-encoding, for a message flagged compressed. */
  readonly encoding: string | undefined;
}

/**
 * readOnlyRequest is the one request message of a unary or server-streaming call, read from the
 * stream's 'data' chunks until its 'end' without the async iterators of grpc-request-body.ts and
 * grpc-request-messages.ts, under the same checks: each chunk accounted through the stream's
 * limits (receive buffers, flags) and the receive clock running while it waits for the client;
 * a message announcing more than `limit` bytes fails before its bytes are taken in; a byte past
 * the first message fails the call (this method takes exactly one), as does a body cut inside
 * it or without one (account.end). Failed, the stream is paused, not destroyed, so its answer
 * can still be written and drainUnread can throw the rest away.
 */
export function readOnlyRequest<Desc extends DescMessage>(
  stream: ServerHttp2Stream,
  schema: Desc,
  bounds: OnlyRequestBounds,
): Promise<MessageShape<Desc>> {
  const { account, limit } = bounds;
  const limits = account.limits;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    /** The whole first message's size, prefix included, once its prefix is in. */
    let wanted = -1;
    const finish = (error: Error | undefined) => {
      limits.stopWaiting(account);
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("close", onClose);
      if (error === undefined) {
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
        return;
      }
      stream.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      limits.stopWaiting(account);
      const problem = account.push(chunk);
      if (problem !== undefined) return finish(new ConnectError(problem.message, problem.code));
      chunks.push(chunk);
      received += chunk.byteLength;
      if (wanted < 0 && received >= envelopeHeaderBytes) {
        const size = (chunks.length === 1 ? chunk : Buffer.concat(chunks, received)).readUInt32BE(1);
        if (size > limit) return finish(bounds.tooLarge(size));
        wanted = envelopeHeaderBytes + size;
      }
      if (wanted >= 0 && received > wanted) return finish(moreThanOne());
      limits.wait(account);
    };
    const onEnd = () => {
      const problem = account.end();
      finish(problem === undefined ? undefined : new ConnectError(problem.message, problem.code));
    };
    const onClose = () => finish(new ConnectError("the client closed the stream", Code.Aborted));
    limits.wait(account);
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("close", onClose);
  }).then((body) => {
    const bytes = body.subarray(envelopeHeaderBytes);
    if ((body[0]! & 1) === 0 || bytes.byteLength === 0) return decodeRequest(schema, bytes);
    return unpack(body[0]!, bytes, bounds.encoding, limit).then((plain) => decodeRequest(schema, plain));
  });
}

function moreThanOne(): ConnectError {
  return new ConnectError(
    "The call sent more than one request message; this method takes exactly one. Send one message, then half-close.",
    Code.InvalidArgument,
  );
}
