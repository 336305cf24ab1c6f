import { Code } from "@connectrpc/connect";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ErrorInfoSchema } from "../../../gen/ts/google/rpc/error_details_pb.js";
import { toConnectError } from "../../service/error-mapping.js";
import { SkillUriError } from "./skill-uri.js";

/**
 * SkillRequestError is a JSON-RPC error a skills request ends with: the SDK answers a thrown
 * error's `code`, `message` and `data` as they are (an McpError's message would carry its own
 * "MCP error <code>:" prefix, which the client's McpError then adds again).
 */
export class SkillRequestError extends Error {
  override readonly name = "SkillRequestError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: { readonly reason: string },
  ) {
    super(message);
  }
}

/** invalidParams is the -32602 the MCP Skills extension answers for what it does not serve. */
export function invalidParams(message: string): SkillRequestError {
  return new SkillRequestError(ErrorCode.InvalidParams, message);
}

/** refusedReasons are the policy layer's refusals: their messages name no server path. */
const refusedReasons = new Set(["UNAUTHENTICATED", "TOKEN_EXPIRED", "QUOTA_EXCEEDED", "SHUTTING_DOWN"]);

/** notServedReasons are the reasons that mean "this server serves nothing at that URI". */
const notServedReasons = new Set([
  "SKILL_NOT_FOUND",
  "NOT_FOUND",
  "NOT_A_REGULAR_FILE",
  "NOT_A_DIRECTORY",
  "ACCESS_DENIED",
  "PATH_TRAVERSAL",
  "INVALID_PATH",
  "EMPTY_PATH",
]);

/**
 * mcpSkillError maps what a skills request failed with to the JSON-RPC error its client gets.
 * A URI this server serves nothing at (an unknown skill, a file that is not there, a skill that
 * failed to load, a namespace outside the caller's scope) is -32602 with a message built here
 * from the URI the client sent: service messages and ErrorInfo metadata can name server paths
 * (a skill folder, its SKILL.md), which this face never shows. A refusal of the caller
 * (authentication, quota) keeps its message, as tools/list does, with -32600; anything else
 * is -32603 with its reason only.
 */
export function mcpSkillError(err: unknown, given: string): SkillRequestError {
  if (err instanceof SkillRequestError) return err;
  if (err instanceof McpError) return new SkillRequestError(err.code, err.message);
  const uri = given.length > 200 ? `${given.slice(0, 200)}...` : given;
  if (err instanceof SkillUriError) return invalidParams(err.message);
  const connect = toConnectError(err);
  const reason = reasonOf(connect);
  if (refusedReasons.has(reason)) {
    return new SkillRequestError(ErrorCode.InvalidRequest, `${reason}: ${connect.rawMessage}`, { reason });
  }
  if (reason === "OUT_OF_SCOPE") {
    return new SkillRequestError(ErrorCode.InvalidParams, `${reason}: ${connect.rawMessage}`, { reason });
  }
  if (notServedReasons.has(reason)) {
    return new SkillRequestError(ErrorCode.InvalidParams, `No skill file is served at ${uri} (${reason}).`, { reason });
  }
  if (reason === "INVALID_SKILL") {
    return new SkillRequestError(
      ErrorCode.InvalidParams,
      `The skill at ${uri} failed to load, so it is not served (${reason}); its author can run \`toolhost skills validate\` on its SKILL.md.`,
      { reason },
    );
  }
  if (reason === "INVALID_ARGUMENT") {
    return new SkillRequestError(ErrorCode.InvalidParams, `${reason}: ${connect.rawMessage}`, { reason });
  }
  return new SkillRequestError(
    ErrorCode.InternalError,
    `Serving ${uri} failed (${reason}); the server log has the cause.`,
    {
      reason,
    },
  );
}

/** reasonOf is the ErrorInfo reason of what a call failed with (its code's name without one). */
export function reasonOf(err: unknown): string {
  const connect = toConnectError(err);
  return connect.findDetails(ErrorInfoSchema)[0]?.reason ?? Code[connect.code];
}
