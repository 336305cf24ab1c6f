import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { toConnectError } from "../service/error-mapping.js";
import { capContent } from "./cap-content.js";
import type { ToolCallResult } from "./tool-call-result.js";

/**
 * errorResult turns a refused or failed tool call into the result a model sees: is_error set,
 * "Error (REASON): message" as content (the message already says what to do next), and the
 * code, reason, message and ErrorInfo metadata as the structured result.
 */
export function errorResult(err: unknown, cap: number): ToolCallResult {
  const connect = toConnectError(err);
  const info = connect.findDetails(ErrorInfoSchema)[0];
  const code = codeName(connect.code);
  const reason = info?.reason ?? code;
  const content = capContent(`Error (${reason}): ${connect.rawMessage}`, cap);
  const structured: JsonObject = {
    code,
    reason,
    message: connect.rawMessage,
    metadata: { ...(info?.metadata ?? {}) },
  };
  return { content: content.text, structured, isError: true, reason, truncated: content.truncated };
}

/** codeName is a Connect code as gRPC spells it: Code.InvalidArgument is "INVALID_ARGUMENT". */
function codeName(code: Code): string {
  return Code[code].replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase();
}
