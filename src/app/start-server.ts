import type { Logger } from "pino";
import { buildServices } from "./build-services.js";
import { drainWithin } from "./drain-history.js";
import type { Config } from "../config/config.js";
import { repliesLeft } from "../files/write/after-reply.js";
import { createCallSinks } from "../transport/observability/call-sinks.js";
import { createCallLogger } from "../transport/call-logger.js";
import { tlsFailureLog } from "../transport/tls/tls-failure-log.js";
import type { HttpHost } from "../transport/http/http-server.js";
import { startNodeHttp2Host } from "../transport/node-http2/node-http2-host.js";
import type { CallRecord } from "../transport/call-record.js";
import { hostedMethodPaths } from "../transport/hosted-methods.js";
import type { MetricsListener } from "../transport/observability/metrics-listener.js";
import type { McpHttpHost } from "../transport/mcp-http/mcp-http-host.js";

/** RunningServer is a started toolhost: its bound addresses and a graceful stop. */
export interface RunningServer {
  /** The gRPC listener's host:port (the real port when the config said 0). */
  readonly grpcAddress: string;
  /** The HTTP listener's host:port, when one was asked for. */
  readonly httpAddress: string | undefined;
  /** How callers authenticate ("bearer-token", "client-certificate"); empty when no one is. */
  readonly authMethods: readonly string[];
  /** Whether the listeners serve TLS. */
  readonly tls: boolean;
  /** The metrics listener's host:port, when one was asked for. */
  readonly metricsAddress: string | undefined;
  /** The MCP Streamable HTTP listener's host:port, when one was asked for. */
  readonly mcpAddress: string | undefined;
  /** Stops accepting calls, lets in-flight calls finish up to the grace period, then ends. */
  close(graceMs?: number): Promise<void>;
}

/**
 * startServer builds the services from a Config and hosts them: on toolhost's own node:http2
 * gRPC host always, on connect-node when
 * http_listen is set, over MCP Streamable HTTP when mcp_listen is (announcing `version` as the
 * MCP server's). Every start-up input is checked first, before anything
 * is touched (a ConfigError stops start-up); stale temporary files of crashed writes are removed
 * before the first call is accepted.
 */
export async function startServer(config: Config, logger: Logger, version = "0.0.0"): Promise<RunningServer> {
  const { services, tools, security, skillCatalog, guardedSkillCatalog, history } = await buildServices(config, logger);
  const logCall = createCallLogger(logger);
  // What only some configurations use is loaded only for them: an idle server's RSS is mostly
  // its module graph (docs/adr/0008-idle-footprint.md): prom-client only for --metrics-listen.
  const metrics =
    config.metricsListen === undefined
      ? undefined
      : (await import("../transport/observability/server-metrics.js")).createServerMetrics(
          () => skillCatalog.counts(),
          hostedMethodPaths(services.map((s) => s.service)),
        );
  const { onCallStart, onCallEnd } = createCallSinks(logCall, metrics);
  let http: HttpHost | undefined;
  let metricsListener: MetricsListener | undefined;
  let mcp: McpHttpHost | undefined;
  const onTlsFailure = tlsFailureLog(logger);
  // A change's after-answer work (afterReply) runs once a stream's trailers have left.
  const grpc = await startNodeHttp2Host(
    config.listen,
    services,
    config.limits,
    onCallEnd,
    { tls: security.tls, authenticator: security.authenticator, onTlsFailure },
    onCallStart,
    repliesLeft,
  ).catch(async (err: unknown) => {
    security.close();
    await skillCatalog.close();
    throw err;
  });
  try {
    if (config.httpListen !== undefined) {
      // Loaded only when asked for: connect-node and its router are not on the default path.
      const { startHttpHost } = await import("../transport/http/http-server.js");
      http = await startHttpHost(
        config.httpListen,
        services,
        config.limits,
        onCallEnd,
        security.tls,
        security.authenticator,
        onCallStart,
        onTlsFailure,
      );
    }
    if (config.mcpListen !== undefined) {
      // Loaded only when asked for: the MCP SDK and its schemas are ~25 MiB of a server's RSS.
      const { startMcpHttpHost } = await import("../transport/mcp-http/mcp-http-host.js");
      mcp = await startMcpHttpHost({
        listen: config.mcpListen,
        tools,
        skills: { catalog: guardedSkillCatalog, source: skillCatalog },
        version,
        limits: config.limits,
        onCallEnd,
        onCallStart,
        tls: security.tls,
        authenticator: security.authenticator,
        onTlsFailure,
      });
    }
    if (metrics !== undefined && config.metricsListen !== undefined) {
      const { startMetricsListener } = await import("../transport/observability/metrics-listener.js");
      metricsListener = await startMetricsListener(config.metricsListen, metrics.registry);
    }
  } catch (err) {
    security.close();
    await Promise.all([grpc.close(0), http?.close(0), mcp?.close(0)]);
    await skillCatalog.close();
    throw err;
  }
  return {
    grpcAddress: grpc.address,
    httpAddress: http?.address,
    authMethods: security.authenticator.methodNames,
    tls: security.tls !== undefined,
    metricsAddress: metricsListener?.address,
    mcpAddress: mcp?.address,
    close: async (graceMs = config.shutdownGraceMs) => {
      const started = Date.now();
      await Promise.all([grpc.close(graceMs), http?.close(graceMs), mcp?.close(graceMs)]);
      // The calls are over; the history lines they answered before syncing are synced and their
      // locks let go (within what is left of the grace period: a hung history folder must not
      // hold the exit).
      if (history !== undefined) await drainWithin(history, Math.max(0, graceMs - (Date.now() - started)));
      await metricsListener?.close();
      security.close();
      await skillCatalog.close();
    },
  };
}
