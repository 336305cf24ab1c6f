import { randomUUID } from "node:crypto";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { peerValuesFromCertificate } from "../peer-identity.js";
import type { Metadata, ServerUnaryCall } from "@grpc/grpc-js";

/** SurfaceCall is what every kind of grpc-js server call offers (grpc-js does not export it). */
export type SurfaceCall = Pick<ServerUnaryCall<Buffer, Buffer>, "metadata" | "getDeadline" | "getPeer" | "sendMetadata" | "cancelled" | "getAuthContext"> & {
  once(event: "cancelled", listener: () => void): unknown;
};

/** HandlerContextController is a HandlerContext with the abort the adapter calls. */
type HandlerContextController = HandlerContext & { abort(reason: unknown): void };

/**
 * CallContext is the per-call state the grpc-js adapter keeps: the Connect HandlerContext the
 * handler sees, and the counters the call log reports.
 */
export interface CallContext {
  readonly handler: HandlerContextController;
  readonly requestId: string;
  readonly startedAt: bigint;
  bytesIn: number;
  bytesOut: number;
  /** Aborts the handler's signal at the end of the call. */
  end(): void;
}

/**
 * callEnded is the abort reason of every call that ended normally: the signal aborts at the end
 * of each call, as Connect's does, and one shared reason spares a DOMException (with its stack)
 * per call, which showed as 3% of a unary benchmark's CPU.
 */
const callEnded = Object.freeze(new ConnectError("The call ended.", Code.Canceled));

/**
 * createCallContext builds the Connect HandlerContext for one grpc-js call, so that handlers
 * written once as Connect ServiceImpls see the same signal, deadline and headers on grpc-js as on
 * connect-node. A client cancel, an expired deadline or a broken connection (grpc-js reports all
 * three as 'cancelled') aborts the signal.
 */
export function createCallContext(
  service: DescService,
  method: DescMethod,
  call: SurfaceCall,
  shutdownSignal: AbortSignal,
): CallContext {
  const requestHeader = headersFromMetadata(call.metadata);
  const requestId = requestHeader.get("x-request-id") ?? randomUUID();
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  const timeoutMs = Number.isFinite(deadlineMs) ? Math.max(0, deadlineMs - Date.now()) : undefined;
  const handler = new GrpcHandlerContext(
    service,
    method,
    requestHeader,
    // The client certificate grpc-js verified (only a verified one is handed over), for mTLS.
    peerValuesFromCertificate(call.getAuthContext().sslPeerCertificate),
    timeoutMs,
    shutdownSignal,
  );
  // grpc-js emits 'cancelled' at the end of every call, even one that succeeded; the error (and
  // its stack) is built only for a call that has not ended yet, once per real cancel.
  let ended = false;
  const cancel = () => {
    if (!ended) {
      handler.abort(new ConnectError("The client cancelled the call or its deadline passed.", Code.Canceled));
    }
  };
  call.once("cancelled", cancel);
  return {
    handler,
    requestId,
    startedAt: process.hrtime.bigint(),
    bytesIn: 0,
    bytesOut: 0,
    end: () => {
      ended = true;
      handler.abort(callEnded);
    },
  };
}

/**
 * GrpcHandlerContext is the Connect HandlerContext of one grpc-js call, with one AbortController
 * where Connect's createHandlerContext makes three (its own, a deadline one and a linked one,
 * with a listener on each) and copies every Headers: that plumbing was ~10% of the busy time of
 * a StatFile call. The signal aborts on a client cancel, at the deadline, at server shutdown and
 * at the end of the call, as Connect's does; abort() also clears the deadline timer and the
 * shutdown listener, so nothing of a finished call stays pending.
 */
class GrpcHandlerContext implements HandlerContext {
  readonly protocolName = "grpc";
  readonly requestMethod = "POST";
  readonly signal: AbortSignal;
  readonly timeoutMs: () => number | undefined;
  readonly #controller = new AbortController();
  readonly #shutdownSignal: AbortSignal;
  readonly #onShutdown = () => this.abort(this.#shutdownSignal.reason);
  #timer: NodeJS.Timeout | undefined;
  #responseHeader: Headers | undefined;
  #responseTrailer: Headers | undefined;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    readonly requestHeader: Headers,
    readonly values: ContextValues,
    timeout: number | undefined,
    shutdownSignal: AbortSignal,
  ) {
    this.signal = this.#controller.signal;
    this.#shutdownSignal = shutdownSignal;
    if (timeout === undefined) {
      this.timeoutMs = () => undefined;
    } else {
      const at = Date.now() + timeout;
      this.timeoutMs = () => at - Date.now();
      this.#timer = setTimeout(() => this.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)), timeout);
    }
    if (shutdownSignal.aborted) {
      this.abort(shutdownSignal.reason);
    } else {
      shutdownSignal.addEventListener("abort", this.#onShutdown, { once: true });
    }
  }

  get url(): string {
    return `/${this.service.typeName}/${this.method.name}`;
  }

  /** The grpc-js adapter sends no handler-set headers; made on first use only. */
  get responseHeader(): Headers {
    return (this.#responseHeader ??= new Headers());
  }

  get responseTrailer(): Headers {
    return (this.#responseTrailer ??= new Headers());
  }

  /** abort aborts the signal (once) and drops the deadline timer and the shutdown listener. */
  abort(reason: unknown): void {
    clearTimeout(this.#timer);
    this.#shutdownSignal.removeEventListener("abort", this.#onShutdown);
    if (!this.signal.aborted) {
      this.#controller.abort(reason);
    }
  }
}

function headersFromMetadata(metadata: Metadata): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(metadata.getMap())) {
    // Binary metadata has no Headers form; none of our handlers reads any.
    if (typeof value === "string") {
      headers.append(key, value);
    }
  }
  return headers;
}
