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
  return new Promise<Buffer>((resolve, reject) => {
    const reader = new OnlyRequestReader(stream, bounds, resolve, reject);
    bounds.account.limits.wait(bounds.account);
    // Left in place once settled (the reader ignores what follows): removing them costs more
    // than the calls they get, a 'close' and, after a failure, the chunks drainUnread throws away.
    stream.on("data", (chunk: Buffer) => reader.data(chunk));
    stream.once("end", () => reader.end());
    stream.once("close", () => reader.close());
  }).then((body) => {
    const bytes = body.subarray(envelopeHeaderBytes);
    if ((body[0]! & 1) === 0 || bytes.byteLength === 0) return decodeRequest(schema, bytes);
    return unpack(body[0]!, bytes, bounds.encoding, bounds.limit).then((plain) => decodeRequest(schema, plain));
  });
}

/** OnlyRequestReader collects one stream's body for readOnlyRequest, until it settles. */
class OnlyRequestReader {
  readonly #chunks: Buffer[] = [];
  #received = 0;
  /** The whole first message's size, prefix included, once its prefix is in. */
  #wanted = -1;
  #settled = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly bounds: OnlyRequestBounds,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  data(chunk: Buffer): void {
    if (this.#settled) return;
    const { account } = this.bounds;
    account.limits.stopWaiting(account);
    const problem = account.push(chunk);
    if (problem !== undefined) return this.#fail(new ConnectError(problem.message, problem.code));
    const chunks = this.#chunks;
    chunks.push(chunk);
    this.#received += chunk.byteLength;
    if (this.#wanted < 0 && this.#received >= envelopeHeaderBytes) {
      const size = (chunks.length === 1 ? chunk : Buffer.concat(chunks, this.#received)).readUInt32BE(1);
      if (size > this.bounds.limit) return this.#fail(this.bounds.tooLarge(size));
      this.#wanted = envelopeHeaderBytes + size;
    }
    if (this.#wanted >= 0 && this.#received > this.#wanted) return this.#fail(moreThanOne());
    account.limits.wait(account);
  }

  end(): void {
    if (this.#settled) return;
    // A reset stream ends too (node:http2 pushes the end as it closes): only a half-close is
    // the end of the request, so a reset before it runs nothing, whatever arrived.
    if (this.stream.aborted) return this.#fail(resetBeforeHalfClose(this.stream.rstCode));
    const { account } = this.bounds;
    const problem = account.end();
    if (problem !== undefined) return this.#fail(new ConnectError(problem.message, problem.code));
    this.#settled = true;
    account.limits.stopWaiting(account);
    const chunks = this.#chunks;
    this.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#received));
  }

  close(): void {
    if (!this.#settled) this.#fail(new ConnectError("the client closed the stream", Code.Aborted));
  }

  #fail(error: Error): void {
    this.#settled = true;
    const { account } = this.bounds;
    account.limits.stopWaiting(account);
    this.stream.pause();
    this.reject(error);
  }
}

function resetBeforeHalfClose(code: number | undefined): ConnectError {
  return new ConnectError(
    `the client reset the stream (HTTP/2 error code ${code}) before half-closing its request; nothing was run`,
    Code.Canceled,
  );
}

function moreThanOne(): ConnectError {
  return new ConnectError(
    "The call sent more than one request message; this method takes exactly one. Send one message, then half-close.",
    Code.InvalidArgument,
  );
}
