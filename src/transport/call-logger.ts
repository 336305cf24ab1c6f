import { Code } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { CallRecord } from "./call-record.js";
import { errorReasonOf } from "./observability/error-reason-of.js";
import { grpcStatusNames } from "./grpc-status-names.js";

const codeNames = new Map<number, string>(grpcStatusNames.map((name, code) => [code, name]));

const serverFaults = new Set<number>([Code.Internal, Code.Unknown, Code.DataLoss]);

/**
 * createCallLogger returns the sink for one JSON line per RPC: method, peer, status code,
 * duration, bytes in and out, request id, the caller's id and a failure's ErrorInfo reason. Never a payload or a header value: file contents and
 * tokens must not reach logs. A server fault also logs its cause, which the client never sees.
 */
export function createCallLogger(logger: Logger): (record: CallRecord) => void {
  return (record) => {
    // Skipped whole when the line would not be written (--log-level warn and above): building
    // it is a few objects per call on the unary hot path.
    if (!serverFaults.has(record.code) && !logger.isLevelEnabled("info")) {
      return;
    }
    const line = {
      method: record.method,
      peer: record.peer,
      code: codeNames.get(record.code) ?? String(record.code),
      duration_ms: Math.round(record.durationMs * 1000) / 1000,
      bytes_in: record.bytesIn,
      bytes_out: record.bytesOut,
      request_id: record.requestId,
      caller: record.caller,
      reason: errorReasonOf(record.error),
      // CallTool: the tool that ran ("" when no tool has the name asked for) and its result's reason.
      ...(record.tool !== undefined || record.toolReason !== undefined
        ? { tool: record.tool ?? "", tool_reason: record.toolReason ?? "" }
        : {}),
    };
    if (serverFaults.has(record.code)) {
      logger.error({ ...line, err: record.error?.cause ?? record.error }, "rpc failed");
    } else {
      logger.info(line, "rpc");
    }
  };
}
