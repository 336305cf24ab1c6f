import { setMaxListeners } from "node:events";
import {
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type ServerHttp2Session,
} from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Authenticator } from "../../auth/authenticator.js";
import type { Limits } from "../../config/config.js";
import { ConfigError } from "../../config/config-error.js";
import { file_google_rpc_error_details } from "../../../gen/ts/google/rpc/error_details_pb.js";
import { Health, file_health_v1_health } from "../../../gen/ts/grpc/health/v1/health_pb.js";
import type { CallRecord } from "../call-record.js";
import { sendLimits, streamGuardOptions } from "../grpc/transport-limits.js";
import type { GrpcHost } from "../grpc-host.js";
import type { HostedService } from "../hosted-service.js";
import { splitHostPort } from "../split-host-port.js";
import { guardNotInForce } from "./guards-in-force.js";
import { pinPeerCertificate } from "../tls/pin-peer-certificate.js";
import { peerOf, type TlsFailure } from "../tls/tls-failure-log.js";
import type { TlsFiles } from "../tls/tls-files.js";
import { grpcStreamDispatch } from "./grpc-stream-dispatch.js";
import { GrpcStreamLimits } from "./grpc-stream-limits.js";
import { createHealthService } from "./health-service.js";
import { reflectionServices } from "./reflection-service.js";
import { watchSession, type SessionTimings } from "./session-watch.js";

/** NodeHttp2Security is what the node:http2 host authenticates with. */
export interface NodeHttp2Security {
  readonly tls?: TlsFiles | undefined;
  readonly authenticator?: Authenticator | undefined;
  readonly onTlsFailure?: ((failure: TlsFailure) => void) | undefined;
}

/** streamWindowBytes and sessionWindowBytes are the receive windows (the grpc-js host's, measured in docs/adr/0004-server-host.md). */
const streamWindowBytes = 8 * 1024 * 1024;
const sessionWindowBytes = 32 * 1024 * 1024;

/** keepalive pings, as the grpc-js host's grpc.keepalive_time_ms and grpc.keepalive_timeout_ms. */
const timings: Omit<SessionTimings, "idleMs"> = { pingEveryMs: 60_000, pingTimeoutMs: 20_000 };

/**
 * startNodeHttp2Host serves the services over gRPC on toolhost's own node:http2 server (public
 * API only), with grpc.health.v1 (open without a token) and server reflection v1 and v1alpha, as
 * the grpc-js host did; it is the one gRPC host (docs/adr/0004-server-host.md). Its streams
 * are served with its own gRPC framing (grpc-stream-dispatch.ts) under these limits:
 * streams per connection, receive timeout and buffers, the truncated-message check
 * (grpc-stream-limits.ts), 8 MiB stream and 32 MiB connection windows, session memory, an idle
 * timeout and keepalive pings (session-watch.ts). SETTINGS_MAX_CONCURRENT_STREAMS is not sent:
 * nghttp2 ends the whole connection of a client that goes over it, so the limit refuses the one
 * stream instead. It resolves once the port is bound; close() drains (GOAWAY, in-flight calls
 * given up to the grace period, then cancelled and the connections destroyed).
 */
export async function startNodeHttp2Host(
  listen: string,
  services: readonly HostedService[],
  limits: Limits,
  onCallEnd: (record: CallRecord) => void,
  security: NodeHttp2Security = {},
  onCallStart?: (method: string) => void,
  onStreamClosed?: () => void,
): Promise<GrpcHost> {
  const shutdown = new AbortController();
  // One abort listener per live call (removed when it ends): many concurrent calls are not a leak.
  setMaxListeners(0, shutdown.signal);
  const health = createHealthService({
    "": "SERVING",
    ...Object.fromEntries(services.map((s) => [s.service.typeName, "SERVING" as const])),
  });
  const served: HostedService[] = [
    ...services,
    { service: Health, impl: health.impl } as unknown as HostedService,
    ...reflectionServices(
      [...services.map((s) => s.service.typeName), Health.typeName],
      // google.rpc.ErrorInfo is reflected too, so `grpcurl -format-error` decodes error details.
      [...services.map((s) => s.service.file), file_google_rpc_error_details, file_health_v1_health],
    ),
  ];
  const recorded = new Set(
    services.flatMap(({ service }) => service.methods.map((m) => `/${service.typeName}/${m.name}`)),
  );
  const dispatch = grpcStreamDispatch({
    recorded: (path) => recorded.has(path),
    services: served,
    maxReceiveMessageBytes: limits.maxReceiveMessageBytes,
    send: sendLimits(limits),
    shutdownSignal: shutdown.signal,
    streamLimits: new GrpcStreamLimits(streamGuardOptions(limits, services)),
    authenticator: security.authenticator,
    onCallEnd,
    onCallStart,
    onStreamClosed,
  });
  const options = {
    settings: { initialWindowSize: streamWindowBytes },
    maxSessionMemory: limits.maxSessionMemoryMiB,
  };
  const tls = security.tls;
  const server: Http2Server | Http2SecureServer =
    tls === undefined
      ? createServer(options)
      : createSecureServer({
          ...options,
          ...tls.contextOptions,
          ALPNProtocols: ["h2"],
          requestCert: tls.names.clientCa !== undefined,
          rejectUnauthorized: tls.names.requireClientCert,
        });
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    const widen = () => session.setLocalWindowSize(sessionWindowBytes);
    if (session.connecting) session.once("connect", widen);
    else widen();
    watchSession(session, { ...timings, idleMs: limits.idleConnectionTimeoutMs });
  });
  server.on("stream", dispatch);
  if (tls !== undefined) {
    // Each connection's client certificate is read once, and renegotiation refused (tls/pin-peer-certificate.ts).
    server.on("secureConnection", (socket: TLSSocket) => pinPeerCertificate(socket));
    server.on("tlsClientError", (err: NodeJS.ErrnoException, socket: Socket) =>
      security.onTlsFailure?.({ listener: "grpc", peer: peerOf(socket), code: err.code ?? "unknown" }),
    );
    const stop = tls.onChange(() => (server as Http2SecureServer).setSecureContext(tls.contextOptions));
    server.once("close", stop);
  }
  // Fail closed: a guard not in force stops start-up (exit 2) before the port is bound.
  const missing = guardNotInForce(server, tls !== undefined);
  if (missing !== undefined) {
    throw new ConfigError(`cannot guard the gRPC listener on ${listen}: ${missing} is not in place`);
  }
  const [host, port] = splitHostPort(listen);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    address: `${listen.slice(0, listen.lastIndexOf(":"))}:${bound}`,
    health,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        for (const { service } of services) health.setStatus(service.typeName, "NOT_SERVING");
        health.setStatus("", "NOT_SERVING");
        const timer = setTimeout(() => {
          shutdown.abort();
          for (const session of sessions) session.destroy();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // GOAWAY: no new streams; the session closes once its open streams end.
        for (const session of sessions) session.close();
      }),
  };
}
