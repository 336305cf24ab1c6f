import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { logVerbosity, setLogger, setLogVerbosity } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { createToolsService } from "../tools/tools-service.js";
import type { Config } from "../config/config.js";
import { startHashWorker } from "../files/read/off-thread-hash.js";
import { removeStaleTempFiles } from "../files/write/sweep-temp-files.js";
import { tempFilePrefix } from "../files/write/temp-files.js";
import { createSandbox } from "../sandbox/create-sandbox.js";
import { FileHistory } from "../files/history/file-history.js";
import { createFileToolsService } from "../service/file-tools/file-tools-service.js";
import { sharedSandbox } from "../service/file-tools/file-tools-deps.js";
import { createSkillCatalogService } from "../service/skill-catalog/skill-catalog-service.js";
import { createCallLogger } from "./call-logger.js";
import { startGrpcHost, type HostedService } from "./grpc-server.js";
import { startHttpHost, type HttpHost } from "./http-server.js";

/** toolsLimits caps what CallTool hands a model: 32 KiB by default, 1 MiB at most, streams 10 s. */
const toolsLimits = { defaultContentBytes: 32 * 1024, maxContentBytes: 1024 * 1024, maxCollectMs: 10_000 };

/** RunningServer is a started toolhost: its bound addresses and a graceful stop. */
export interface RunningServer {
  /** The gRPC listener's host:port (the real port when the config said 0). */
  readonly grpcAddress: string;
  /** The HTTP listener's host:port, when one was asked for. */
  readonly httpAddress: string | undefined;
  /** Stops accepting calls, lets in-flight calls finish up to the grace period, then ends. */
  close(graceMs?: number): Promise<void>;
}

/**
 * startServer builds the services from a Config and hosts them: on grpc-js always, on
 * connect-node when http_listen is set. Stale temporary files of crashed writes are removed
 * before the first call is accepted.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  routeGrpcJsLog(logger);
  // A read-only server never wrote, so it has no temporary files of its own to clean up.
  const stale = await removeStaleTempFiles(config.roots.map((r) => ({ path: r.path, readOnly: r.readOnly || config.readOnly })));
  if (stale.removed.length > 0 || stale.failures.length > 0) {
    logger.warn({ removed: stale.removed.length, failures: stale.failures }, "removed stale temporary files of interrupted writes");
  }
  const sandbox = await createSandbox(config.roots, { readOnly: config.readOnly, reservedNamePrefix: tempFilePrefix, allowHardLinks: config.sandbox.allowHardLinks });
  const fileTools = createFileToolsService({
    sandboxFor: sharedSandbox(sandbox),
    limits: config.limits,
    readOnly: config.readOnly,
    history: config.history === undefined ? undefined : new FileHistory(config.history),
  });
  const skillCatalog = createSkillCatalogService({ skillRoots: config.skills, limits: config.limits, allowHardLinks: config.sandbox.allowHardLinks, logger: logger.child({ component: "skills" }) });
  const services: HostedService[] = [
    { service: FileTools, impl: fileTools as unknown as ServiceImpl<DescService> },
    { service: SkillCatalog, impl: skillCatalog as unknown as ServiceImpl<DescService> },
    { service: Tools, impl: createToolsService({ fileTools, skillCatalog, ...toolsLimits }) as unknown as ServiceImpl<DescService> },
  ];
  const onCallEnd = createCallLogger(logger);
  // Up front, so the worker's thread and descriptors are there from the first call on.
  startHashWorker();
  let http: HttpHost | undefined;
  const grpc = await startGrpcHost(config.listen, services, config.limits, onCallEnd).catch(async (err: unknown) => {
    await skillCatalog.close();
    throw err;
  });
  try {
    if (config.httpListen !== undefined) {
      http = await startHttpHost(config.httpListen, services, config.limits, onCallEnd);
    }
  } catch (err) {
    await grpc.close(0);
    await skillCatalog.close();
    throw err;
  }
  return {
    grpcAddress: grpc.address,
    httpAddress: http?.address,
    close: async (graceMs = config.shutdownGraceMs) => {
      await Promise.all([grpc.close(graceMs), http?.close(graceMs)]);
      await skillCatalog.close();
    },
  };
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
