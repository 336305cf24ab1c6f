import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { isLoopbackHost } from "../../config/is-loopback-host.js";
import { guardLoopbackHost } from "../loopback-host-guard.js";
import { splitHostPort } from "../split-host-port.js";

/** MetricsListener is the running --metrics-listen endpoint. */
export interface MetricsListener {
  readonly address: string;
  close(): Promise<void>;
}

/**
 * startMetricsListener serves the registry in the Prometheus text format at GET /metrics on its
 * own port, so scraping never competes with, or is exposed by, the service listeners. Anything
 * else is 404. On loopback, only loopback Host headers are answered (DNS rebinding).
 */
export async function startMetricsListener(listen: string, registry: Registry): Promise<MetricsListener> {
  const [host, port] = splitHostPort(listen);
  const handler = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found; metrics are at GET /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (err: unknown) =>
        res.writeHead(500, { "content-type": "text/plain" }).end(`collecting metrics failed: ${String(err)}\n`),
    );
  };
  const server: Server = createServer(isLoopbackHost(host) ? guardLoopbackHost(handler) : handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    address: `${host.includes(":") ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
