import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Limits } from "../config/config.js";
import type { CallRecord } from "./grpc-js/grpc-service-from-impl.js";
import type { HostedService } from "./grpc-server.js";
import { isLoopbackHost } from "../config/is-loopback-host.js";
import { guardLoopbackHost } from "./loopback-host-guard.js";
import { createHttpCallRecorder } from "./observability/http-call-recorder.js";

/** HttpHost is the optional Connect / gRPC-Web / JSON listener. */
export interface HttpHost {
  readonly address: string;
  close(graceMs: number): Promise<void>;
}

/**
 * startHttpHost mounts the same ServiceImpl objects as the gRPC listener with connect-node, so
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
  onCallStart?: (method: string) => void,
): Promise<HttpHost> {
  const shutdown = new AbortController();
  const methods = new Set(services.flatMap(({ service }) => service.methods.map((m) => `/${service.typeName}/${m.name}`)));
  const recorder = createHttpCallRecorder({ onCallEnd, onCallStart, oversize: { limit: limits.maxReceiveMessageBytes, methods } });
  const handler = connectNodeAdapter({
    routes: (router) => {
      for (const { service, impl } of services) {
        router.service(service, impl);
      }
    },
    acceptCompression: [],
    readMaxBytes: limits.maxReceiveMessageBytes,
    shutdownSignal: shutdown.signal,
    interceptors: [recorder.interceptor],
  });
  const [host, port] = splitHostPort(listen);
  // Only a loopback listener can tell a rebound browser request by its Host; beyond loopback the
  // names callers use are not known here, and such a listener needs --insecure and a proxy anyway.
  const recorded = recorder.wrap(handler);
  const server: Server = createServer(isLoopbackHost(host) ? guardLoopbackHost(recorded) : recorded);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    address: `${host}:${bound}`,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          shutdown.abort();
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** splitHostPort splits "host:port" (IPv6 hosts in brackets) into its parts. */
export function splitHostPort(listen: string): [string, number] {
  const at = listen.lastIndexOf(":");
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/, "$1");
  return [host, Number(listen.slice(at + 1))];
}
