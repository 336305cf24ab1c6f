import type { CallRecord } from "../call-record.js";
import type { CallHooks } from "../policy/refused-call.js";
import { createCallTracer } from "./call-tracing.js";
import type { ServerMetrics } from "./server-metrics.js";

/**
 * createCallSinks is the one place a call's record goes, whichever face served or refused it:
 * its log line (`logCall`), the Prometheus metrics when they are kept, and a tracing span
 * (call-tracing.ts, a no-op without an OpenTelemetry SDK). Every listener takes these hooks, so
 * no face logs, counts or traces a call in a way of its own.
 */
export function createCallSinks(
  logCall: (record: CallRecord) => void,
  metrics: ServerMetrics | undefined,
  traceCall: (record: CallRecord) => void = createCallTracer(),
): CallHooks {
  if (metrics === undefined) {
    return {
      onCallEnd: (record) => {
        logCall(record);
        traceCall(record);
      },
    };
  }
  return {
    onCallStart: metrics.callStarted,
    onCallEnd: (record) => {
      metrics.callEnded(record);
      logCall(record);
      traceCall(record);
    },
  };
}
