import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { logVerbosity, setLogger, setLogVerbosity } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { createToolsService } from "../tools/tools-service.js";
import type { Config } from "../config/config.js";
import { checkStartUpInputs } from "../config/start-up-inputs.js";
import { stagingDirOf } from "../config/state-dir.js";
import { useStagingJournal } from "../files/write/staging-journal.js";
import { startHashWorker } from "../files/read/off-thread-hash.js";
import { repliesLeft } from "../files/write/after-reply.js";
import { removeStaleTempFiles } from "../files/write/sweep-temp-files.js";
import { tempFilePrefix } from "../files/write/temp-files.js";
import { FileHistory } from "../files/history/file-history.js";
import { createFileToolsService } from "../service/file-tools/file-tools-service.js";
import { recoverUndos } from "../service/file-tools/undo/undo-journaled.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { Quotas } from "../auth/quotas.js";
import { fullScope } from "../auth/scope.js";
import { ScopeSandboxes } from "../auth/scope-sandboxes.js";
import { callerSandbox, principalOf } from "../service/caller.js";
import { authorizeTool } from "../service/authorize-tool.js";
import { methodTiers } from "../service/method-tiers.js";
import { authInterceptor } from "../transport/grpc-js/auth-interceptor.js";
import { guardService } from "../transport/guard-service.js";
import { openSecurity } from "../transport/open-security.js";
import { grpcServerCredentials } from "../transport/tls/grpc-credentials.js";
import { createSkillCatalogService } from "../service/skill-catalog/skill-catalog-service.js";
import { createCallLogger } from "../transport/call-logger.js";
import { tlsFailureLog } from "../transport/tls/tls-failure-log.js";
import { startGrpcHost, type HostedService } from "../transport/grpc-server.js";
import { startHttpHost, type HttpHost } from "../transport/http/http-server.js";
import type { CallRecord } from "../transport/grpc-js/grpc-service-from-impl.js";
import { createServerMetrics } from "../transport/observability/server-metrics.js";
import { hostedMethodPaths } from "../transport/hosted-methods.js";
import { startMetricsListener, type MetricsListener } from "../transport/observability/metrics-listener.js";

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
  /** Stops accepting calls, lets in-flight calls finish up to the grace period, then ends. */
  close(graceMs?: number): Promise<void>;
}

/**
 * startServer builds the services from a Config and hosts them: on grpc-js always, on
 * connect-node when http_listen is set. Every start-up input is checked first, before anything
 * is touched (a ConfigError stops start-up); stale temporary files of crashed writes are removed
 * before the first call is accepted.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  await checkStartUpInputs(config);
  useStagingJournal(stagingDirOf(config)); // the folder just checked, not whatever the environment says later
  routeGrpcJsLog(logger);
  // A read-only server never wrote, so it has no temporary files of its own to clean up.
  const stale = await removeStaleTempFiles(
    config.roots.map((r) => ({ path: r.path, readOnly: r.readOnly || config.readOnly })),
  );
  if (stale.removed.length > 0 || stale.failures.length > 0) {
    logger.warn(
      { removed: stale.removed.length, failures: stale.failures },
      "removed stale temporary files of interrupted writes",
    );
  }
  if (stale.unrecorded.length > 0) {
    logger.warn(
      { folders: stale.unrecorded },
      "left folders named like staging folders that no staging journal record names; remove them by hand if they are leftovers",
    );
  }
  const sandboxes = new ScopeSandboxes({
    roots: config.roots,
    readOnly: config.readOnly,
    reservedNamePrefix: tempFilePrefix,
    allowHardLinks: config.sandbox.allowHardLinks,
  });
  // Built now, so a missing root stops start-up rather than the first call.
  const serverSandbox = await sandboxes.sandboxFor(fullScope);
  const history = config.history === undefined ? undefined : new FileHistory(config.history);
  if (history !== undefined) await finishUndos(history, serverSandbox, config, logger);
  const security = openSecurity(config, logger);
  const gate = { authenticator: security.authenticator, quotas: new Quotas(), sandboxes, methodTier: methodTiers() };
  const fileTools = createFileToolsService({
    sandboxFor: callerSandbox,
    limits: config.limits,
    readOnly: config.readOnly,
    history,
    callerOf: (context) => principalOf(context).id,
  });
  const skillCatalog = createSkillCatalogService({
    skillRoots: config.skills,
    limits: config.limits,
    allowHardLinks: config.sandbox.allowHardLinks,
    logger: logger.child({ component: "skills" }),
  });
  const tools = createToolsService({
    fileTools,
    skillCatalog,
    defaultContentBytes: config.limits.toolContentBytes,
    maxContentBytes: config.limits.maxToolContentBytes,
    maxCollectMs: config.limits.toolCollectMs,
    authorize: authorizeTool,
  });
  const services: HostedService[] = [
    { service: FileTools, impl: guardService(FileTools, fileTools, gate) as unknown as ServiceImpl<DescService> },
    {
      service: SkillCatalog,
      impl: guardService(SkillCatalog, skillCatalog, gate) as unknown as ServiceImpl<DescService>,
    },
    { service: Tools, impl: guardService(Tools, tools, gate) as unknown as ServiceImpl<DescService> },
  ];
  const logCall = createCallLogger(logger);
  const metrics =
    config.metricsListen === undefined
      ? undefined
      : createServerMetrics(() => skillCatalog.counts(), hostedMethodPaths(services.map((s) => s.service)));
  const onCallEnd =
    metrics === undefined ? logCall : (record: CallRecord) => (metrics.callEnded(record), logCall(record));
  const onCallStart = metrics?.callStarted;
  // Up front, so the worker's thread and descriptors are there from the first call on.
  startHashWorker();
  let http: HttpHost | undefined;
  let metricsListener: MetricsListener | undefined;
  const onTlsFailure = tlsFailureLog(logger);
  const grpcSecurity = {
    credentials: security.tls === undefined ? undefined : grpcServerCredentials(security.tls),
    interceptors: [authInterceptor(security.authenticator, onCallEnd)],
    onTlsFailure,
  };
  // A change's after-answer work (afterReply) runs once a stream's trailers have left.
  const grpc = await startGrpcHost(
    config.listen,
    services,
    config.limits,
    onCallEnd,
    grpcSecurity,
    onCallStart,
    repliesLeft,
  ).catch(async (err: unknown) => {
    security.close();
    await skillCatalog.close();
    throw err;
  });
  try {
    if (config.httpListen !== undefined) {
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
    if (metrics !== undefined && config.metricsListen !== undefined) {
      metricsListener = await startMetricsListener(config.metricsListen, metrics.registry);
    }
  } catch (err) {
    security.close();
    await Promise.all([grpc.close(0), http?.close(0)]);
    await skillCatalog.close();
    throw err;
  }
  return {
    grpcAddress: grpc.address,
    httpAddress: http?.address,
    authMethods: security.authenticator.methodNames,
    tls: security.tls !== undefined,
    metricsAddress: metricsListener?.address,
    close: async (graceMs = config.shutdownGraceMs) => {
      const started = Date.now();
      await Promise.all([grpc.close(graceMs), http?.close(graceMs)]);
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

/** drainWithin waits for the history's pending lines (FileHistory.drain), at most `ms`. */
async function drainWithin(history: FileHistory, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    history.drain().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/**
 * routeGrpcJsLog sends grpc-js's own diagnostics (written to stderr by default) into the JSON log
 * at debug level: what matters of them (a port in use, say) is reported by toolhost itself, and a
 * stray plain-text line breaks both the JSON stream and the one-line start-up error.
 */
function routeGrpcJsLog(logger: Logger): void {
  setLogVerbosity(logVerbosity.ERROR);
  setLogger({
    error: (...args: unknown[]) => logger.debug({ source: "grpc-js" }, args.map(String).join(" ")),
  } as Console);
}

/**
 * finishUndos completes (or takes back) the undos a server killed in the middle of one left in
 * the history folder, before the first call is accepted, and logs what became of each.
 */
async function finishUndos(history: FileHistory, sandbox: Sandbox, config: Config, logger: Logger): Promise<void> {
  for (const undo of await recoverUndos(history, sandbox, config.limits.maxPathDepth)) {
    const line = {
      path: undo.clientPath,
      outcome: undo.outcome,
      ...(undo.message === undefined ? {} : { message: undo.message }),
    };
    if (undo.outcome === "failed") logger.warn(line, "an undo cut short by a crash could not be finished");
    else logger.info(line, "finished an undo cut short by a crash");
  }
}
