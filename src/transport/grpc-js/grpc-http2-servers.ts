import type { Http2Server } from "node:http2";
import type { Server } from "@grpc/grpc-js";

/**
 * http2ServersOf returns the node:http2 servers a bound grpc-js server listens with, or undefined
 * if grpc-js no longer keeps them where it did (its private `http2Servers` map): grpc-js offers no
 * hook on its connections and streams, so the stream guard, the flow-control windows, the oversize
 * explanations and the pinned peer certificates are put in place on these. This is the one place
 * that reads the map; start-up refuses to run when it finds none (requireHttp2Servers).
 */
export function http2ServersOf(server: Server): Http2Server[] | undefined {
  const servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  return servers instanceof Map ? [...servers.keys()] : undefined;
}
