import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ToolhostError } from "../../src/errors/toolhost-error.js";
import { toConnectError } from "../../src/service/error-mapping.js";
import type { CallRecord } from "../../src/transport/call-record.js";
import { createCallSinks } from "../../src/transport/observability/call-sinks.js";
import { createCallTracer } from "../../src/transport/observability/call-tracing.js";
import { createServerMetrics } from "../../src/transport/observability/server-metrics.js";
import { recordRefusedCall } from "../../src/transport/policy/refused-call.js";

const method = "/toolhost.files.v1.FileTools/StatFile";

/** sinksWithSpans is the one call sink with metrics, a log kept in memory and a tracer into `spans`. */
function sinksWithSpans(spans: InMemorySpanExporter) {
  const logged: CallRecord[] = [];
  const metrics = createServerMetrics(() => ({ skills: 0, errors: 0 }), new Set([method]));
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const sinks = createCallSinks((record) => logged.push(record), metrics, createCallTracer(provider.getTracer("t")));
  return { sinks, logged, metrics };
}

describe("the one call sink", () => {
  it("records a refusal as a started and ended call: logged, counted, traced, the active gauge back at 0", async () => {
    const spans = new InMemorySpanExporter();
    const { sinks, logged, metrics } = sinksWithSpans(spans);
    const error = toConnectError(new ToolhostError("UNAUTHENTICATED", "No credentials."));
    recordRefusedCall(sinks, { method, peer: "127.0.0.1", requestId: "r-1", error });
    assert.deepEqual(
      logged.map((r) => [r.method, r.code, r.requestId, r.caller]),
      [[method, 16, "r-1", undefined]],
    );
    const text = await metrics.registry.metrics();
    assert.match(text, /toolhost_rpc_active_streams\{method="\/toolhost\.files\.v1\.FileTools\/StatFile"\} 0\n/);
    assert.match(text, /toolhost_rpc_calls_total\{[^}]*code="UNAUTHENTICATED",reason="UNAUTHENTICATED"\} 1\n/);
    const [span] = spans.getFinishedSpans();
    assert.equal(span?.name, "toolhost.files.v1.FileTools/StatFile");
    assert.equal(span?.attributes["toolhost.reason"], "UNAUTHENTICATED");
    assert.equal(span?.attributes["toolhost.request_id"], "r-1");
    assert.equal(span?.status.code, 0, "a client's fault is not an error span");
  });

  it("marks a server fault's span as an error, with the caller and the call's duration", () => {
    const spans = new InMemorySpanExporter();
    const { sinks } = sinksWithSpans(spans);
    sinks.onCallStart?.(method);
    sinks.onCallEnd({
      method,
      peer: "127.0.0.1:1",
      code: 13,
      durationMs: 250,
      bytesIn: 1,
      bytesOut: 2,
      requestId: "r-2",
      error: new ConnectError("boom", 13),
      caller: "writer",
    });
    const [span] = spans.getFinishedSpans();
    assert.equal(span?.attributes["toolhost.caller"], "writer");
    assert.equal(span?.status.code, 2);
    const [seconds, nanos] = span!.duration;
    assert.equal(seconds * 1000 + Math.round(nanos / 1e6), 250);
  });
});
