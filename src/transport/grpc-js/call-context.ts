import { randomUUID } from "node:crypto";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import type { Metadata, ServerUnaryCall } from "@grpc/grpc-js";

/** SurfaceCall is what every kind of grpc-js server call offers (grpc-js does not export it). */
export type SurfaceCall = Pick<ServerUnaryCall<Buffer, Buffer>, "metadata" | "getDeadline" | "getPeer" | "sendMetadata" | "cancelled"> & {
  once(event: "cancelled", listener: () => void): unknown;
};

/**
 * CallContext is the per-call state the grpc-js adapter keeps: the Connect HandlerContext the
 * handler sees, and the counters the call log reports.
 */
export interface CallContext {
  readonly handler: HandlerContext;
  readonly requestId: string;
  readonly startedAt: bigint;
  bytesIn: number;
  bytesOut: number;
  /** Aborts the handler's signal; called on client cancel, deadline, or call end. */
  abort(reason: unknown): void;
}

/**
 * createCallContext builds the Connect HandlerContext for one grpc-js call, so that handlers
 * written once as Connect ServiceImpls see the same signal, deadline and headers on grpc-js as on
 * connect-node. A client cancel or an expired deadline (grpc-js reports both as 'cancelled')
 * aborts the signal; so does 'close' before the handler finished, which is how a broken
 * connection shows up.
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
  const controller = new AbortController();
  const handler = createHandlerContext({
    service,
    method,
    protocolName: "grpc",
    requestMethod: "POST",
    url: `/${service.typeName}/${method.name}`,
    timeoutMs,
    shutdownSignal,
    requestSignal: controller.signal,
    requestHeader,
  });
  const cancel = () => controller.abort(new ConnectError("The client cancelled the call or its deadline passed.", Code.Canceled));
  call.once("cancelled", cancel);
  return {
    handler,
    requestId,
    startedAt: process.hrtime.bigint(),
    bytesIn: 0,
    bytesOut: 0,
    abort: (reason) => controller.abort(reason),
  };
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
