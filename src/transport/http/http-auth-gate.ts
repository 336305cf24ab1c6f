import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/authenticator.js";
import { anonymousPrincipal } from "../../auth/principal.js";
import { toConnectError } from "../../service/error-mapping.js";
import { peerIdentityKey, peerValues } from "../peer-identity.js";
import { writeRefusal } from "./http-refusal.js";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** AdmittedHandler serves a request whose caller the gate authenticated, named by its id. */
type AdmittedHandler = (req: IncomingMessage, res: ServerResponse, caller: string) => void;

/**
 * httpAuthGate refuses an unauthenticated request on the HTTP listener from its headers alone,
 * before anything claims receive buffer for it or reads its body, answering UNAUTHENTICATED in
 * the caller's protocol (writeRefusal). An admitted request goes
 * on with its caller's id (the anonymous caller's on a server that authenticates no one), which
 * the receive budget counts it against. The services admit the call again, with tier and quota,
 * in authenticateCall; this is the cheap early check, as the grpc-js listener's auth interceptor
 * is. connect-node offers no hook before the body is read.
 */
export function httpAuthGate(
  authenticator: Authenticator | undefined,
  onRefused: (req: IncomingMessage, error: ConnectError) => void,
  handler: AdmittedHandler,
): NodeHandler {
  if (authenticator === undefined || !authenticator.enabled) {
    return (req, res) => admit(req, res, anonymousPrincipal.id, handler);
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
      // The body is not read: the connection is closed once the answer is out, so it is not
      // kept for another request and nothing of the body is taken in.
      writeRefusal(req, res, error, { close: true });
      return;
    }
    admit(req, res, caller, handler);
  };
}

/**
 * admit hands an authenticated request on, first sending `100 Continue` when its client waits for
 * one (`Expect: 100-continue`; the server routes those through its 'checkContinue' event, so that
 * Node does not send it before the gate ran): a refused client gets its final answer instead, and
 * never starts sending a body that would not be read.
 */
function admit(req: IncomingMessage, res: ServerResponse, caller: string, handler: AdmittedHandler): void {
  if (req.headers.expect?.toLowerCase() === "100-continue") res.writeContinue();
  handler(req, res, caller);
}
