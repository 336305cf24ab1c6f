import { ServerInterceptingCall, type ServerInterceptor } from "@grpc/grpc-js";
import type { Authenticator } from "../../auth/authenticator.js";
import { toConnectError } from "../../service/error-mapping.js";
import { certificateIdentity } from "../peer-identity.js";
import type { CallRecord } from "../call-record.js";
import { statusFromError } from "./status-from-error.js";
import { requestIdFrom } from "../request-id.js";

/**
 * authInterceptor refuses an unauthenticated grpc-js call as soon as its headers arrive, before
 * any request message is read, for every service but grpc.health.v1 (probes stay open). It is
 * what makes server reflection follow the auth rules; the toolhost services are admitted again,
 * with tier and quota, by authenticateCall. A refused call is logged here, as it never reaches
 * the adapter.
 */
export function authInterceptor(
  authenticator: Authenticator,
  onCallEnd: (record: CallRecord) => void,
): ServerInterceptor {
  return (descriptor, call) => {
    if (!authenticator.enabled || descriptor.path.startsWith("/grpc.health.v1.")) {
      // Nothing to check: the call itself is the next one (grpc-js chains whatever an interceptor
      // returns, see preframed-interceptor.ts), not a pass-through wrapper with a hop per event.
      return call as ServerInterceptingCall;
    }
    return new ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, pass) => {
            const authorization = metadata.get("authorization")[0];
            try {
              authenticator.authenticate({
                authorization: typeof authorization === "string" ? authorization : undefined,
                certificateIdentity: certificateIdentity(call.getAuthContext().sslPeerCertificate),
              });
            } catch (err) {
              const error = toConnectError(err);
              const requestId = requestIdFrom(metadata.get("x-request-id")[0]);
              // Trailers-only: the request id goes with the status, as a refused HTTP call's does.
              const status = statusFromError(error);
              status.metadata.set("x-request-id", requestId);
              call.sendStatus(status);
              onCallEnd({
                method: descriptor.path,
                peer: call.getPeer(),
                code: error.code,
                durationMs: 0,
                bytesIn: 0,
                bytesOut: 0,
                requestId,
                error,
              });
              return;
            }
            pass(metadata);
          },
        });
      },
    });
  };
}
