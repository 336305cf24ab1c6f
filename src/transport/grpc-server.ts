import { createRequire } from "node:module";
import type { Http2Server } from "node:http2";
import { Server, ServerCredentials, type ChannelOptions, type ServerInterceptor } from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Limits } from "../config/config.js";
import { ConfigError } from "../config/config-error.js";
import { grpcServiceFromImpl } from "./grpc-js/grpc-service-from-impl.js";
import { type CallRecord } from "./call-record.js";
import { addReflection } from "./reflection.js";
import { http2ServersOf } from "./grpc-js/grpc-http2-servers.js";
import { pinPeerCertificate } from "./tls/pin-peer-certificate.js";
import { peerOf, type TlsFailure } from "./tls/tls-failure-log.js";
import type { Socket } from "node:net";
import { widenFlowControl } from "./grpc-js/widen-flow-control.js";
import { guardStreams } from "./grpc-js/stream-guard.js";
import { maxSendMessageBytes, sendLimits, streamGuardOptions } from "./grpc/transport-limits.js";
import { explainOversizeRequests } from "./grpc-js/explain-oversize-requests.js";
import { sendPreframed } from "./grpc-js/preframed-interceptor.js";
import { file_google_rpc_error_details } from "../../gen/ts/google/rpc/error_details_pb.js";

/** HostedService is one ServiceImpl and the descriptor it implements. */
export interface HostedService {
  readonly service: DescService;
  readonly impl: ServiceImpl<DescService>;
}

/** GrpcHostSeams replace what start-up finds on grpc-js, for the test that it fails closed. */
export interface GrpcHostSeams {
  readonly findHttp2Servers?: (server: Server) => readonly Http2Server[] | undefined;
}

/** GrpcHost is a listening gRPC server: grpc-js here, or node:http2 (node-http2/node-http2-host.ts). */
export interface GrpcHost {
  readonly address: string;
  /** Sets the grpc.health.v1 status of one service ("" for the server). */
  readonly health: { setStatus(service: string, status: "SERVING" | "NOT_SERVING"): void };
  /** Stops accepting calls, waits up to graceMs for in-flight ones, then cancels the rest. */
  close(graceMs: number): Promise<void>;
}

/**
 * startGrpcHost serves the services on grpc-js with reflection and grpc.health.v1, with the
 * limits set explicitly rather than left to grpc-js defaults (4 MiB messages, unbounded streams).
 * It resolves once the port is bound, so a port in use fails start-up.
 */
export async function startGrpcHost(
  listen: string,
  services: readonly HostedService[],
  limits: Limits,
  onCallEnd: (record: CallRecord) => void,
  security: {
    credentials?: ServerCredentials;
    interceptors?: ServerInterceptor[];
    onTlsFailure?: (failure: TlsFailure) => void;
  } = {},
  onCallStart?: (method: string) => void,
  onStreamClosed?: () => void,
  seams: GrpcHostSeams = {},
): Promise<GrpcHost> {
  const options: ChannelOptions = {
    "grpc.max_receive_message_length": limits.maxReceiveMessageBytes,
    "grpc.max_send_message_length": maxSendMessageBytes(limits),
    // No grpc.max_concurrent_streams: nghttp2 resets a whole connection when a stream goes over
    // it; guardStreams enforces limits.maxConcurrentStreams per connection and refuses one stream.
    "grpc-node.max_session_memory": limits.maxSessionMemoryMiB,
    "grpc.max_connection_idle_ms": limits.idleConnectionTimeoutMs,
    "grpc.keepalive_time_ms": 60_000,
    "grpc.keepalive_timeout_ms": 20_000,
    // No channelz: toolhost serves no channelz service, yet with it on (grpc-js's default) every
    // call and connection is tracked for it: a call event tracker with four closures per call,
    // call counters, and a process-wide registry entry per connection. Turning it off saves
    // that work; the saving is within the noise of a ghz A/B on this machine (bench/README.md).
    "grpc.enable_channelz": 0,
  };
  // Streamed responses leave toolhost as whole frames, without grpc-js's copy of each; that
  // interceptor must come first (it is handed grpc-js's base call), the auth interceptor after it.
  const server = new Server({ ...options, interceptors: [sendPreframed, ...(security.interceptors ?? [])] });
  const shutdown = new AbortController();
  // Set once the port is bound (grpc-js creates its http2 servers then); calls start after that.
  let correct = (record: CallRecord) => record;
  const adapterOptions = {
    ...sendLimits(limits),
    shutdownSignal: shutdown.signal,
    onCallEnd: (record: CallRecord) => onCallEnd(correct(record)),
    onCallStart,
  };
  for (const { service, impl } of services) {
    const { definition, implementation } = grpcServiceFromImpl(service, impl, adapterOptions);
    server.addService(definition, implementation);
  }
  const health = new HealthImplementation({
    "": "SERVING",
    ...Object.fromEntries(services.map((s) => [s.service.typeName, "SERVING"])),
  });
  health.addToServer(server);
  // google.rpc.ErrorInfo is reflected too, so `grpcurl -format-error` decodes error details.
  addReflection(server, [...services.map((s) => s.service.file), file_google_rpc_error_details]);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(listen, security.credentials ?? ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  // The guards below hang off grpc-js's HTTP/2 servers: without them the listener would lose its
  // stream limits, receive bounds and the truncated-message check, so it does not start.
  const listenerServers = (seams.findHttp2Servers ?? http2ServersOf)(server);
  if (listenerServers === undefined || listenerServers.length === 0) {
    server.forceShutdown();
    throw new ConfigError(
      `cannot guard the gRPC listener on ${listen}: this @grpc/grpc-js (${grpcJsVersion()}) does not expose its HTTP/2 servers where toolhost puts its stream limits, receive bounds and truncated-message check; install the @grpc/grpc-js version package-lock.json names`,
    );
  }
  // Measured with bench/go/uploadbench: 150 -> 300-380 MB/s for a 256 MiB upload on loopback
  // (4 MiB windows); through bench/go/latencyproxy (50 ms round trip) 4 MiB gave 37-39 MB/s and
  // 8 MiB / 32 MiB 72-76 MB/s: a stream can move at most one window per round trip.
  widenFlowControl(listenerServers, 8 * 1024 * 1024, 32 * 1024 * 1024);
  // Each TLS connection's client certificate is read once (tls/pin-peer-certificate.ts).
  if (security.credentials !== undefined) {
    for (const http2Server of listenerServers) {
      http2Server.on("secureConnection", pinPeerCertificate);
      // Node's public event for a handshake that failed; grpc-js logs nothing of it.
      http2Server.on("tlsClientError", (err: NodeJS.ErrnoException, socket: Socket) =>
        security.onTlsFailure?.({ listener: "grpc", peer: peerOf(socket), code: err.code ?? "unknown" }),
      );
    }
  }
  guardStreams(listenerServers, { ...streamGuardOptions(limits, services), onStreamClosed });
  correct = explainOversizeRequests(listenerServers, limits.maxReceiveMessageBytes, onCallEnd, onCallStart);
  const host = listen.slice(0, listen.lastIndexOf(":"));
  return {
    address: `${host}:${port}`,
    health,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        for (const { service } of services) {
          health.setStatus(service.typeName, "NOT_SERVING");
        }
        health.setStatus("", "NOT_SERVING");
        const timer = setTimeout(() => {
          shutdown.abort();
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/** grpcJsVersion is the installed @grpc/grpc-js's version, for the start-up refusal's message. */
function grpcJsVersion(): string {
  try {
    return (createRequire(import.meta.url)("@grpc/grpc-js/package.json") as { version: string }).version;
  } catch {
    return "version unknown";
  }
}
