import { requestIdFrom } from "../request-id.js";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Metadata } from "@grpc/grpc-js";
import { peerValuesFromCertificate } from "../peer-identity.js";
import { GrpcHandlerContext } from "./grpc-handler-context.js";
import type { SurfaceCall } from "./surface-call.js";

export type { SurfaceCall } from "./surface-call.js";

/**
 * CallContext is the per-call state the grpc-js adapter keeps: the Connect HandlerContext the
 * handler sees, and the counters the call log reports. A class, so that a call allocates one
 * object and no closures for it.
 */
export class CallContext {
  bytesIn = 0;
  bytesOut = 0;
  #headerSent = false;
  #headerTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly handler: GrpcHandlerContext,
    readonly requestId: string,
    readonly startedAt: bigint,
  ) {}

  /**
   * sendHeader sends the response headers (x-request-id, and those the handler set) once, right before the first message or
   * the status: headers sent at the start of a call left in a socket write of their own, on
   * which the client woke up for nothing; sent with the answer they share its write. (grpc-go
   * sends its headers with the first message too.)
   */
  sendHeader(call: SurfaceCall): void {
    if (this.#headerSent) return;
    this.#headerSent = true;
    clearTimeout(this.#headerTimer);
    const header = new Metadata();
    header.set("x-request-id", this.requestId);
    this.handler.addResponseHeaders(header);
    call.sendMetadata(header);
  }

  /**
   * sendHeaderBefore sends the headers headerLeadMs before the call's deadline if nothing has
   * sent them by then: at the deadline grpc-js ends the call itself (DEADLINE_EXCEEDED), with no
   * headers of ours, and the client would lose the request id exactly when it needs it to find
   * the call in the server's log.
   */
  sendHeaderBefore(call: SurfaceCall, deadlineMs: number): void {
    const wait = deadlineMs - Date.now() - headerLeadMs;
    if (wait <= 0) {
      this.sendHeader(call);
      return;
    }
    this.#headerTimer = setTimeout(() => this.sendHeader(call), wait);
  }

  /** end aborts the handler's signal at the end of the call. */
  end(): void {
    clearTimeout(this.#headerTimer);
    this.handler.end();
  }
}

/**
 * headerLeadMs is how long before its deadline a call still unanswered sends its headers. The
 * client ends the call at its own clock's deadline, which comes a network transit before the
 * server's: the headers must reach it before that, from an event loop that may be late under
 * load (5 ms lost them at load 12-16). Sending them early costs one frame, nothing else.
 */
const headerLeadMs = 25;

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
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  const handler = new GrpcHandlerContext(
    service,
    method,
    call,
    // The client certificate grpc-js verified (only a verified one is handed over), for mTLS.
    peerValuesFromCertificate(call.getAuthContext().sslPeerCertificate),
    Number.isFinite(deadlineMs) ? deadlineMs : undefined,
    shutdownSignal,
  );
  const context = new CallContext(handler, requestIdFrom(handler.headerValue("x-request-id")), process.hrtime.bigint());
  if (Number.isFinite(deadlineMs)) context.sendHeaderBefore(call, deadlineMs);
  return context;
}
