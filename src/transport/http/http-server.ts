import { setMaxListeners } from "node:events";
import type { IncomingMessage } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import { peerValues } from "../peer-identity.js";
import type { TlsFailure } from "../tls/tls-failure-log.js";
import type { TlsFiles } from "../tls/tls-files.js";
import type { Authenticator } from "../../auth/authenticator.js";
import { requestAuthGate } from "../policy/request-auth-gate.js";
import { recordRefusedCall } from "../policy/refused-call.js";
import { writeRefusal } from "./http-refusal.js";
import type { Limits } from "../../config/config.js";
import type { CallRecord } from "../call-record.js";
import type { HostedService } from "../hosted-service.js";
import { isLoopbackHost } from "../../config/is-loopback-host.js";
import { guardLoopbackHost } from "../loopback-host-guard.js";
import { createHttpCallRecorder } from "./http-call-recorder.js";
import { boundHttpBodies } from "./http-body-budget.js";
import { connectHandler } from "./http-connect-handler.js";
import { splitHostPort } from "../split-host-port.js";
import { openHttpListener } from "../policy/http-listener.js";
import { drainUnreadBodies } from "./http-drain-unread-body.js";
import { checkRequestTarget } from "./http-request-target.js";
import { requestIdOf } from "../policy/request-id-of.js";

/** HttpHost is the optional Connect / gRPC-Web / JSON listener. */
export interface HttpHost {
  readonly address: string;
  close(graceMs: number): Promise<void>;
}

/**
 * startHttpHost mounts the same ServiceImpl objects as the gRPC listener on connect-node's router
 * (http-connect-handler.ts), so
 * browsers (gRPC-Web) and curl (Connect JSON: `curl -H 'content-type: application/json' -d
 * '{}' http://HOST/toolhost.files.v1.FileTools/ListTools`) reach the same handlers. Response
 * compression is off: file content is usually compressed already or cheap to send on a local link,
 * and compressing it costs the CPU the reads need.
 */
export async function startHttpHost(
  listen: string,
  services: readonly HostedService[],
  limits: Limits,
  onCallEnd: (record: CallRecord) => void,
  tls?: TlsFiles,
  authenticator?: Authenticator,
  onCallStart?: (method: string) => void,
  onTlsFailure?: (failure: TlsFailure) => void,
): Promise<HttpHost> {
  const shutdown = new AbortController();
  // One abort listener per live call (removed when it ends): many concurrent calls are not a leak.
  setMaxListeners(0, shutdown.signal);
  const recorder = createHttpCallRecorder({ onCallEnd, onCallStart });
  const handler = connectHandler({
    services,
    maxReceiveMessageBytes: limits.maxReceiveMessageBytes,
    shutdownSignal: shutdown.signal,
    interceptors: [recorder.interceptor],
    contextValues: (req) => peerValues(req.socket),
    onRefusedCall: recorder.refusedCall,
  });
  const [host] = splitHostPort(listen);
  // Only a loopback listener can tell a rebound browser request by its Host; beyond loopback the
  // names callers use are not known here, and such a listener needs TLS and authentication (a
  // browser holds no token) or --insecure behind a proxy.
  const refused = (req: IncomingMessage, error: ConnectError, caller?: string) =>
    recordRefusedCall(
      { onCallStart, onCallEnd },
      {
        method: (req.url ?? "").split("?", 1)[0]!,
        peer: req.socket.remoteAddress ?? "http",
        requestId: requestIdOf(req),
        error,
        caller,
      },
    );
  // Authentication first: a request that is not authenticated claims no receive buffer, and its
  // connection is closed with its body unread. An admitted one claims from its caller's share and
  // the total; one refused there has its body drained, keeping the connection.
  const admitted = drainUnreadBodies(
    boundHttpBodies(
      limits,
      (req, error, res, caller) => {
        refused(req, error, caller);
        recorder.settle(req, res);
      },
      recorder.wrap(handler),
    ),
  );
  const gated = requestAuthGate(
    authenticator,
    (req, res, error) => {
      refused(req, error);
      writeRefusal(req, res, error, { close: true });
    },
    admitted,
  );
  const serve = checkRequestTarget(isLoopbackHost(host) ? guardLoopbackHost(gated) : gated);
  // A request (a unary one in full, or a streamed one's body) must arrive within the receive
  // timeout, as on the gRPC listener; `Expect: 100-continue` requests take the same path.
  const listener = await openHttpListener({ listen, limits, tls, name: "http", onTlsFailure }, serve);
  return {
    address: listener.address,
    close: (graceMs) => listener.close(shutdown, graceMs),
  };
}
