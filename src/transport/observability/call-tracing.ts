import { createRequire } from "node:module";
import type * as otelApi from "@opentelemetry/api";
import type { Attributes, Tracer } from "@opentelemetry/api";
import type { CallRecord } from "../call-record.js";
import { errorReasonOf } from "./error-reason-of.js";

// @opentelemetry/api (44 CommonJS modules, the build both `import` and `require` resolve to) is
// required when the first call ends, not at start-up: an idle server does not need it (ADR 0008).
// The global tracer it returns then is the one `trace.getTracer` would have returned at start-up:
// without an SDK a proxy that follows a provider registered later.
const require = createRequire(import.meta.url);
let loaded: typeof otelApi | undefined;
function api(): typeof otelApi {
  loaded ??= require("@opentelemetry/api") as typeof otelApi;
  return loaded;
}

/** Codes that are the server's fault: a span of a call ending with one is an error span (OTel's gRPC rule). */
const serverFaults = new Set<number>([2, 4, 12, 13, 14, 15]);

/**
 * createCallTracer returns the sink that turns each call record, of every face (gRPC, gRPC-Web,
 * Connect, MCP), into one server span named after its method, from the call's start (its end less
 * its duration) to its end, with its method, code, caller, ErrorInfo reason, request id and peer,
 * and for CallTool its tool. Through @opentelemetry/api's global tracer: without an SDK
 * registered (the default) it is a no-op that sets nothing. The span is written once the call
 * has ended, from its record, so it is not the parent of spans the handler made.
 */
export function createCallTracer(given?: Tracer): (record: CallRecord) => void {
  let tracer = given;
  return (record) => {
    const { SpanKind, SpanStatusCode, trace } = api();
    tracer ??= trace.getTracer("toolhost");
    const endTime = Date.now();
    const span = tracer.startSpan(record.method.replace(/^\//, ""), {
      kind: SpanKind.SERVER,
      startTime: endTime - record.durationMs,
    });
    if (!span.isRecording()) {
      span.end();
      return;
    }
    const attributes: Attributes = {
      "rpc.system": "grpc",
      "rpc.method": record.method,
      "rpc.grpc.status_code": record.code,
      "toolhost.peer": record.peer,
      "toolhost.request_id": record.requestId,
      "toolhost.bytes_in": record.bytesIn,
      "toolhost.bytes_out": record.bytesOut,
    };
    if (record.caller !== undefined) attributes["toolhost.caller"] = record.caller;
    const reason = errorReasonOf(record.error);
    if (reason !== undefined) attributes["toolhost.reason"] = reason;
    if (record.tool !== undefined) attributes["toolhost.tool"] = record.tool;
    if (record.toolReason !== undefined) attributes["toolhost.tool_reason"] = record.toolReason;
    span.setAttributes(attributes);
    if (serverFaults.has(record.code)) span.setStatus({ code: SpanStatusCode.ERROR, message: reason ?? "" });
    span.end(endTime);
  };
}
