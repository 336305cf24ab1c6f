import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { grpcStatusNames } from "../grpc-status-names.js";
import type { CallRecord } from "../call-record.js";
import { errorReasonOf } from "./error-reason-of.js";
import { errorCatalog } from "../../errors/error-catalog.js";

/** SkillCounts is what the skill catalog holds right now. */
export interface SkillCounts {
  readonly skills: number;
  readonly errors: number;
}

/** ServerMetrics records calls into a Prometheus registry. */
export interface ServerMetrics {
  readonly registry: Registry;
  /** A call began (it counts as an active stream until callEnded). */
  callStarted(method: string): void;
  /** A call ended: counted by method, code and reason, timed, its bytes added. */
  callEnded(record: CallRecord): void;
}

const codeNames = new Map<number, string>(grpcStatusNames.map((name, code) => [code, name]));

/** unknownMethod is the one method label of every call to a path the server does not host. */
export const unknownMethod = "unknown";

const catalogReasons: ReadonlySet<string> = new Set(Object.keys(errorCatalog));

/**
 * createServerMetrics registers toolhost's metrics and Node's process metrics (CPU, memory,
 * event-loop lag, handles, GC) in a registry of its own. Label values come from fixed sets, so
 * what a client sends cannot add series: `methods` (the paths the server hosts; any other path
 * is `unknown`), gRPC code names and the error catalog's reasons (any other is empty).
 */
export function createServerMetrics(skillCounts: () => SkillCounts, methods: ReadonlySet<string>): ServerMetrics {
  const methodLabel = (path: string) => (methods.has(path) ? path : unknownMethod);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const calls = new Counter({
    name: "toolhost_rpc_calls_total",
    help: "Calls finished, by method, gRPC status code and ErrorInfo reason (empty when none).",
    labelNames: ["method", "code", "reason"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "toolhost_rpc_duration_seconds",
    help: "Call duration from the first byte received to the status sent.",
    labelNames: ["method", "code"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [registry],
  });
  const received = new Counter({
    name: "toolhost_rpc_received_bytes_total",
    help: "Request bytes received.",
    labelNames: ["method"] as const,
    registers: [registry],
  });
  const sent = new Counter({
    name: "toolhost_rpc_sent_bytes_total",
    help: "Response bytes sent.",
    labelNames: ["method"] as const,
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: "toolhost_tool_calls_total",
    help: "CallTool results, by tool (its seed name; `unknown` when no tool has the name asked for) and ErrorInfo reason (empty when it succeeded).",
    labelNames: ["tool", "reason"] as const,
    registers: [registry],
  });
  const active = new Gauge({
    name: "toolhost_rpc_active_streams",
    help: "Calls in progress (each is one HTTP/2 stream or HTTP request).",
    labelNames: ["method"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "toolhost_skills_loaded",
    help: "Skills in the catalog.",
    registers: [registry],
    collect() {
      this.set(skillCounts().skills);
    },
  });
  new Gauge({
    name: "toolhost_skill_errors",
    help: "Skill folders that failed to load (ListSkillErrors lists them).",
    registers: [registry],
    collect() {
      this.set(skillCounts().errors);
    },
  });
  return {
    registry,
    callStarted: (path) => active.inc({ method: methodLabel(path) }),
    callEnded: (record) => {
      const method = methodLabel(record.method);
      const code = codeNames.get(record.code) ?? "UNKNOWN";
      const reason = errorReasonOf(record.error) ?? "";
      active.dec({ method });
      calls.inc({ method, code, reason: catalogReasons.has(reason) ? reason : "" });
      duration.observe({ method, code }, record.durationMs / 1000);
      received.inc({ method }, record.bytesIn);
      sent.inc({ method }, record.bytesOut);
      // The tool is one the server resolved (never the name a client sent): the label set is the
      // catalog's tools, as bounded as the catalog itself.
      if (record.toolReason !== undefined) {
        toolCalls.inc({
          tool: record.tool ?? unknownMethod,
          reason: catalogReasons.has(record.toolReason) ? record.toolReason : "",
        });
      }
    },
  };
}
