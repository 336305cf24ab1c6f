import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/authenticator.js";
import { callerOfRequest } from "./request-caller.js";

/** NodeHandler is a node:http request listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** AdmittedHandler serves a request whose caller the gate authenticated, named by its id. */
export type AdmittedHandler = (req: IncomingMessage, res: ServerResponse, caller: string) => void;

/** RefuseRequest answers (and records) a request the gate refused, in the face's own protocol. */
export type RefuseRequest = (req: IncomingMessage, res: ServerResponse, error: ConnectError) => void;

/**
 * requestAuthGate is the authentication step of every HTTP/1.1 face (Connect, gRPC-Web, MCP): a
 * request that is not authenticated (callerOfRequest) is refused from its headers alone, before
 * anything claims receive buffer for it or reads its body; `refuse` answers it in the face's
 * protocol and closes the connection, its body unread. An admitted request goes on with its
 * caller's id, first getting `100 Continue` when its client waits for one (`Expect:
 * 100-continue`; the listener routes those through its 'checkContinue' event, so that Node does
 * not send it before the gate ran): a refused client gets its final answer instead, and never
 * starts sending a body that would not be read. connect-node and the MCP SDK offer no hook
 * before the body is read.
 */
export function requestAuthGate(
  authenticator: Authenticator | undefined,
  refuse: RefuseRequest,
  handler: AdmittedHandler,
): NodeHandler {
  return (req, res) => {
    const outcome = callerOfRequest(authenticator, req);
    if ("refused" in outcome) {
      refuse(req, res, outcome.refused);
      return;
    }
    if (req.headers.expect?.toLowerCase() === "100-continue") res.writeContinue();
    handler(req, res, outcome.caller);
  };
}
