import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { Authenticator } from "../../auth/authenticator.js";
import { toConnectError } from "../../service/error-mapping.js";
import { peerIdentityKey, peerValues } from "../peer-identity.js";

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * httpAuthGate refuses an unauthenticated request on the HTTP listener from its headers alone,
 * before connect-node reads a body of up to max_receive_message_bytes, answering in the caller's
 * protocol: gRPC-Web as a trailers-only response (HTTP 200, grpc-status 16), Connect and plain
 * JSON as HTTP 401 with the Connect error JSON (ErrorInfo in `details`). The services admit the
 * call again, with tier and quota, in authenticateCall; this is the cheap early check, as the
 * grpc-js listener's auth interceptor is. connect-node offers no hook before the body is read.
 */
export function httpAuthGate(authenticator: Authenticator, onRefused: (req: IncomingMessage, error: ConnectError) => void, handler: NodeHandler): NodeHandler {
  if (!authenticator.enabled) {
    return handler;
  }
  return (req, res) => {
    const authorization = req.headers.authorization;
    try {
      authenticator.authenticate({ authorization, certificateIdentity: peerValues(req.socket).get(peerIdentityKey) });
    } catch (err) {
      const error = toConnectError(err);
      onRefused(req, error);
      const contentType = req.headers["content-type"] ?? "";
      if (contentType.startsWith("application/grpc-web")) {
        const headers: Record<string, string> = { "content-type": contentType };
        setTrailerStatus(new Headers(), error).forEach((value, key) => (headers[key] = value));
        res.writeHead(200, headers);
      } else {
        res.writeHead(codeToHttpStatus(error.code), { "content-type": "application/json" });
        res.write(errorToJsonBytes(error, {}));
      }
      // The body is not read: the connection is not reused for another request.
      res.shouldKeepAlive = false;
      res.end();
      return;
    }
    handler(req, res);
  };
}
