import { constants, type ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { allocateChunk } from "../../files/read/chunk-buffers.js";
import type { StreamAccount } from "./grpc-stream-limits.js";

/** envelopeHeaderBytes is a gRPC message prefix: one flag byte and a four-byte length. */
const envelopeHeaderBytes = 5;

/**
 * pooledMessageBytes is the size from which a message spread over DATA chunks is put together in
 * reusable shared memory (chunk-buffers.ts) rather than a fresh buffer: a 256 MiB upload of 1 MiB
 * messages otherwise maps, faults in and unmaps 256 MiB of new pages, and the hash worker can
 * read shared memory in place. Its consumer may give it back (releaseChunkMemory); if it never
 * does, the garbage collector takes it.
 */
const pooledMessageBytes = 64 * 1024;

/**
 * maxQueuedBytes and maxQueuedMessages bound the whole messages read ahead of the handler: past
 * either, the stream is paused (node:http2 then stops widening the client's window) until the
 * handler has taken them all.
 */
const maxQueuedBytes = 1024 * 1024;
const maxQueuedMessages = 64;

/** RequestEnvelope is one whole request message: its flags byte and its bytes, as sent. */
export interface RequestEnvelope {
  readonly flags: number;
  readonly bytes: Buffer;
}

/**
 * grpcRequestBody is the request body of a client- or bidi-streaming call (a single-message one
 * is read by grpc-only-request.ts) as its whole messages, read from the stream's 'data' chunks
 * through the stream's limits (grpc-stream-limits.ts): each chunk is accounted when it arrives; a
 * message announcing more than `limit` bytes fails with `tooLarge(size)` before its bytes are
 * taken in; the end is checked, so a body cut inside a message fails (INVALID_ARGUMENT) instead
 * of ending cleanly, and a stream reset before it ended fails CANCELLED. The receive clock runs
 * only while the handler waits for a message and the client owes bytes. A message inside one
 * chunk is a view of it; one spread over chunks is copied once into a buffer of its size. Left
 * early (the handler failed), the stream is paused and stays open so its answer can still be
 * written (drainUnread reads the rest).
 */
export function grpcRequestBody(
  stream: ServerHttp2Stream,
  account: StreamAccount,
  limit: number,
  tooLarge: (size: number) => Error,
): AsyncIterable<RequestEnvelope> {
  return { [Symbol.asyncIterator]: () => new RequestBodyReader(stream, account, limit, tooLarge) };
}

interface Waiter {
  readonly resolve: (result: IteratorResult<RequestEnvelope>) => void;
  readonly reject: (error: unknown) => void;
}

/** RequestBodyReader is one stream's grpcRequestBody: 'data' chunks in, whole messages out. */
class RequestBodyReader implements AsyncIterator<RequestEnvelope> {
  readonly #queue: RequestEnvelope[] = [];
  #queuedBytes = 0;
  readonly #head = Buffer.alloc(envelopeHeaderBytes);
  #headFilled = 0;
  #flags = 0;
  #message: Buffer | undefined;
  #messageFilled = 0;
  /** The stream's 'end' arrived: no more data. */
  #ended = false;
  /** The reader is finished (its end returned, it failed, or the handler left): chunks are ignored. */
  #stopped = false;
  #failure: unknown;
  #waiter: Waiter | undefined;
  #finishing: Promise<IteratorResult<RequestEnvelope>> | undefined;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly account: StreamAccount,
    private readonly limit: number,
    private readonly tooLarge: (size: number) => Error,
  ) {
    stream.on("data", (chunk: Buffer) => this.#data(chunk));
    stream.once("end", () => this.#end());
    stream.once("close", () => this.#close());
  }

  next(): Promise<IteratorResult<RequestEnvelope>> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const queued = this.#queue.shift();
    if (queued !== undefined) {
      this.#queuedBytes -= queued.bytes.byteLength;
      if (this.#queue.length === 0 && this.stream.isPaused() && !this.#stopped) this.stream.resume();
      return Promise.resolve({ done: false, value: queued });
    }
    if (this.#ended) return this.#finish();
    if (this.#stopped) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
      this.#waitForClient();
    });
  }

  return(): Promise<IteratorResult<RequestEnvelope>> {
    this.#stop();
    return Promise.resolve({ done: true, value: undefined });
  }

  #data(chunk: Buffer): void {
    if (this.#stopped) return;
    const { account } = this;
    account.limits.stopWaiting(account);
    const problem = account.push(chunk);
    if (problem !== undefined) return this.#fail(new ConnectError(problem.message, problem.code));
    const end = chunk.byteLength;
    for (let at = 0; at < end; ) {
      let message = this.#message;
      if (message === undefined) {
        let length: number;
        if (this.#headFilled === 0 && end - at >= envelopeHeaderBytes) {
          this.#flags = chunk[at]!;
          length = chunk.readUInt32BE(at + 1);
          at += envelopeHeaderBytes;
        } else {
          const head = this.#head;
          const step = Math.min(envelopeHeaderBytes - this.#headFilled, end - at);
          chunk.copy(head, this.#headFilled, at, at + step);
          this.#headFilled += step;
          at += step;
          if (this.#headFilled < envelopeHeaderBytes) continue;
          this.#headFilled = 0;
          this.#flags = head[0]!;
          length = head.readUInt32BE(1);
        }
        if (length > this.limit) return this.#fail(this.tooLarge(length));
        if (end - at >= length) {
          this.#enqueue(chunk.subarray(at, at + length));
          at += length;
          continue;
        }
        message = length >= pooledMessageBytes ? allocateChunk(length) : Buffer.allocUnsafe(length);
        this.#message = message;
        this.#messageFilled = 0;
      }
      const step = Math.min(message.byteLength - this.#messageFilled, end - at);
      chunk.copy(message, this.#messageFilled, at, at + step);
      this.#messageFilled += step;
      at += step;
      if (this.#messageFilled === message.byteLength) {
        this.#message = undefined;
        this.#enqueue(message);
      }
    }
    const waiter = this.#waiter;
    if (waiter === undefined) {
      if (this.#queuedBytes >= maxQueuedBytes || this.#queue.length >= maxQueuedMessages) this.stream.pause();
      return;
    }
    const queued = this.#queue.shift();
    if (queued === undefined) {
      this.#waitForClient();
      return;
    }
    this.#queuedBytes -= queued.bytes.byteLength;
    this.#waiter = undefined;
    waiter.resolve({ done: false, value: queued });
  }

  #enqueue(bytes: Buffer): void {
    this.#queue.push({ flags: this.#flags, bytes });
    this.#queuedBytes += bytes.byteLength;
  }

  /** waitForClient runs the receive clock while the handler waits and the client owes bytes. */
  #waitForClient(): void {
    if (this.account.expecting) this.account.limits.wait(this.account);
  }

  #end(): void {
    this.#ended = true;
    const waiter = this.#waiter;
    if (waiter === undefined || this.#stopped) return;
    this.#waiter = undefined;
    this.#finish().then(waiter.resolve, waiter.reject);
  }

  #close(): void {
    if (this.#ended || this.#stopped) return;
    this.#fail(
      new ConnectError(
        "The request stream was reset before it ended; nothing was committed. Send the whole request and half-close it.",
        Code.Canceled,
      ),
    );
  }

  /** finish checks the body's end once: a cut message, or a reset that came with the end, fails it. */
  #finish(): Promise<IteratorResult<RequestEnvelope>> {
    this.#finishing ??= (async () => {
      this.account.limits.stopWaiting(this.account);
      const problem = this.account.end();
      if (problem !== undefined) throw new ConnectError(problem.message, problem.code);
      if (!this.account.single && (await resetAfterEnd(this.stream))) {
        throw new ConnectError(
          "The client cancelled the stream before half-closing it; nothing was committed.",
          Code.Canceled,
        );
      }
      this.#stopped = true;
      return { done: true, value: undefined } as const;
    })();
    return this.#finishing;
  }

  #fail(error: unknown): void {
    this.#failure = error;
    this.#stop();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
  }

  /** stop ignores what else arrives; the stream is paused for drainUnread to read the rest. */
  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.account.limits.stopWaiting(this.account);
    if (!this.#ended) this.stream.pause();
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
