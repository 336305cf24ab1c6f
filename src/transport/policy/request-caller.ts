import type { IncomingMessage } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/authenticator.js";
import { anonymousPrincipal } from "../../auth/principal.js";
import { toConnectError } from "../../service/error-mapping.js";
import { peerIdentityKey, peerValues } from "../peer-identity.js";

/** RequestCaller is who sent a request, by id, or why it is refused (UNAUTHENTICATED, TOKEN_EXPIRED). */
export type RequestCaller = { readonly caller: string } | { readonly refused: ConnectError };

/**
 * callerOfRequest authenticates an HTTP/1.1 request from its headers alone (callerFromHeaders),
 * with the verified client certificate of its socket over TLS.
 */
export function callerOfRequest(authenticator: Authenticator | undefined, req: IncomingMessage): RequestCaller {
  return callerFromHeaders(authenticator, req.headers.authorization, peerValues(req.socket).get(peerIdentityKey));
}

/**
 * callerFromHeaders authenticates a request from its headers alone, on any face: its
 * `authorization` and, over TLS, the verified client certificate's identity, with the
 * Authenticator every listener uses. A server that authenticates no one admits everyone as the
 * anonymous caller. The services admit each call again, with tier and quota (authenticateCall);
 * this is the cheap check made before anything of the body is read.
 */
export function callerFromHeaders(
  authenticator: Authenticator | undefined,
  authorization: string | undefined,
  certificateIdentity: string | undefined,
): RequestCaller {
  if (authenticator === undefined || !authenticator.enabled) return { caller: anonymousPrincipal.id };
  try {
    return { caller: authenticator.authenticate({ authorization, certificateIdentity }).id };
  } catch (err) {
    return { refused: toConnectError(err) };
  }
}
