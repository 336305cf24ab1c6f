import type { ServerHttp2Stream } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { toConnectError } from "../../service/error-mapping.js";
import { BoundedWriter } from "../grpc/bounded-writer.js";
import { oversizeRequestError } from "../oversize-request-error.js";
import type { SendBudget } from "../grpc/send-budget.js";
import type { sendLimits } from "../grpc/transport-limits.js";
import type { CallIo, HostedMethod } from "./grpc-method-call.js";
import { type OnlyRequestBounds, readOnlyRequest } from "./grpc-only-request.js";
import { grpcRequestBody } from "./grpc-request-body.js";
import { grpcRequestMessages } from "./grpc-request-messages.js";
import type { StreamAccount } from "./grpc-stream-limits.js";
import { StreamStop } from "./stream-stop.js";

/**
 * streamClosed is the abort reason of a call's writer once its stream closed or its answer was
 * released: one object, since an abort without a reason makes a DOMException, stack and all, per
 * call (2.7% of the host's CPU under ghz StatFile). Made at its first use, not at start-up: a
 * ConnectError makes a Headers, which loads node's fetch implementation (ADR 0008).
 */
let streamClosedReason: ConnectError | undefined;
function streamClosed(): ConnectError {
  streamClosedReason ??= new ConnectError("the stream closed", Code.Canceled);
  return streamClosedReason;
}

/**
 * StreamCallIo is what one admitted call on the node:http2 host reads and writes through, as
 * one object with methods rather than a closure per need: its request (one message read whole,
 * grpc-only-request.ts, or a stream of them, grpc-request-messages.ts), made only when the call
 * asks; its writer, which keeps the unflushed answer within the call's, its connection's and the
 * process's budgets; and its release: a handler that ends its call (its context aborted with a
 * ConnectError other than a cancel: WatchSkills fallen behind, a revocation, the deadline) ends
 * it at once, even if the client stopped reading.
 */
export class StreamCallIo implements CallIo, OnlyRequestBounds {
  readonly writer: BoundedWriter;
  readonly #stream: ServerHttp2Stream;
  readonly #hosted: HostedMethod;
  readonly #path: string;
  readonly #send: ReturnType<typeof sendLimits>;
  /** Stops the writer's waits: aborted when the stream closes or the answer is released. */
  readonly #stop = new StreamStop();
  #released = false;

  constructor(
    stream: ServerHttp2Stream,
    hosted: HostedMethod,
    path: string,
    readonly account: StreamAccount,
    readonly limit: number,
    readonly encoding: string | undefined,
    send: ReturnType<typeof sendLimits>,
    budgets: readonly SendBudget[],
  ) {
    this.#stream = stream;
    this.#hosted = hosted;
    this.#path = path;
    this.#send = send;
    this.writer = new BoundedWriter(stream, send.maxPendingBytes, this.#stop, budgets);
  }

  requests(): AsyncIterable<unknown> {
    return grpcRequestMessages(
      grpcRequestBody(this.#stream, this.account, this.limit, (size) => this.tooLarge(size)),
      this.#hosted.method.input,
      this.encoding,
      this.limit,
    );
  }

  onlyRequest(): Promise<unknown> {
    return readOnlyRequest(this.#stream, this.#hosted.method.input, this);
  }

  tooLarge(size: number): Error {
    return toConnectError(oversizeRequestError(this.#path, size, this.limit));
  }

  released(): boolean {
    return this.#released;
  }

  estimate(request: unknown): number | undefined {
    return this.#send.estimateMessage(this.#hosted.method, request);
  }

  onAbort(reason: unknown): void {
    if (reason instanceof ConnectError && reason.code !== Code.Canceled && reason.code !== Code.Aborted) {
      this.#released = true;
      this.#stop.abort(streamClosed());
    }
  }

  /** streamClosed stops the writer's waits: the stream is gone. */
  streamClosed(): void {
    this.#stop.abort(streamClosed());
  }
}
