import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import { errorReasonOf } from "../observability/error-reason-of.js";
import { answerJsonRpcError } from "./mcp-http-answer.js";

/**
 * answerMcpUnauthenticated answers an MCP request the auth gate (request-auth-gate.ts) refused:
 * HTTP 401 with `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"` (RFC 9728 §5.1,
 * as the MCP authorization spec asks), `error="invalid_token"` when a token was sent (RFC 6750
 * §3.1), and a JSON-RPC error whose message starts with the ErrorInfo reason (UNAUTHENTICATED,
 * TOKEN_EXPIRED). The connection is closed after it, the body unread.
 */
export function answerMcpUnauthenticated(
  req: IncomingMessage,
  res: ServerResponse,
  error: ConnectError,
  metadataUrl: string,
): void {
  const authorization = req.headers.authorization;
  const challenge = [
    `resource_metadata="${metadataUrl}"`,
    ...(authorization === undefined || authorization === "" ? [] : ['error="invalid_token"']),
  ].join(", ");
  answerJsonRpcError(res, 401, `${errorReasonOf(error) ?? "UNAUTHENTICATED"}: ${error.rawMessage}`, {
    close: true,
    headers: { "www-authenticate": `Bearer ${challenge}` },
  });
}
