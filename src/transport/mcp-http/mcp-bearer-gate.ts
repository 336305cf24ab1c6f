import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/authenticator.js";
import { anonymousPrincipal } from "../../auth/principal.js";
import { errorReasonOf } from "../observability/error-reason-of.js";
import { toConnectError } from "../../service/error-mapping.js";
import { peerIdentityKey, peerValues } from "../peer-identity.js";
import { answerJsonRpcError } from "./mcp-http-answer.js";

/** AdmittedHandler serves a request whose caller the gate authenticated, named by its id. */
type AdmittedHandler = (req: IncomingMessage, res: ServerResponse, caller: string) => void;

/**
 * mcpBearerGate refuses an MCP request that is not authenticated from its headers alone, before
 * its body is read: HTTP 401 with `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"`
 * (RFC 9728 §5.1, as the MCP authorization spec asks), `error="invalid_token"` when a token was
 * sent (RFC 6750 §3.1), and a JSON-RPC error whose message starts with the ErrorInfo reason
 * (UNAUTHENTICATED, TOKEN_EXPIRED). The check is the Authenticator the gRPC listeners use, with
 * the verified client certificate's identity over TLS; the Tools service admits each call again
 * with its tier and quota. The connection is closed after a refusal, its body unread.
 */
export function mcpBearerGate(
  authenticator: Authenticator | undefined,
  metadataUrl: (req: IncomingMessage) => string,
  onRefused: (req: IncomingMessage, error: ConnectError) => void,
  handler: AdmittedHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  if (authenticator === undefined || !authenticator.enabled) {
    return (req, res) => handler(req, res, anonymousPrincipal.id);
  }
  return (req, res) => {
    const authorization = req.headers.authorization;
    let caller: string;
    try {
      caller = authenticator.authenticate({
        authorization,
        certificateIdentity: peerValues(req.socket).get(peerIdentityKey),
      }).id;
    } catch (err) {
      const error = toConnectError(err);
      onRefused(req, error);
      const challenge = [
        `resource_metadata="${metadataUrl(req)}"`,
        ...(authorization === undefined || authorization === "" ? [] : ['error="invalid_token"']),
      ].join(", ");
      answerJsonRpcError(res, 401, `${errorReasonOf(error) ?? "UNAUTHENTICATED"}: ${error.rawMessage}`, {
        close: true,
        headers: { "www-authenticate": `Bearer ${challenge}` },
      });
      return;
    }
    handler(req, res, caller);
  };
}
