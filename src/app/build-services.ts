import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "pino";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { Quotas } from "../auth/quotas.js";
import { fullScope } from "../auth/scope.js";
import { ScopeSandboxes } from "../auth/scope-sandboxes.js";
import type { Config } from "../config/config.js";
import { checkStartUpInputs } from "../config/start-up-inputs.js";
import { stagingDirOf } from "../config/state-dir.js";
import { FileHistory } from "../files/history/file-history.js";
import { useStagingJournal } from "../files/write/staging-journal.js";
import { removeStaleTempFiles } from "../files/write/sweep-temp-files.js";
import { tempFilePrefix } from "../files/write/temp-files.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { authorizeTool } from "../service/authorize-tool.js";
import { callerSandbox, principalOf } from "../service/caller.js";
import { createFileToolsService } from "../service/file-tools/file-tools-service.js";
import { methodTiers } from "../service/method-tiers.js";
import { createSkillCatalogService } from "../service/skill-catalog/skill-catalog-service.js";
import { recoverUndos } from "../service/file-tools/undo/undo-journaled.js";
import { createToolsService } from "../tools/tools-service.js";
import type { HostedService } from "../transport/hosted-service.js";
import { guardService } from "../transport/guard-service.js";
import { openSecurity, type Security } from "../transport/open-security.js";

/** BuiltServices are the policy-guarded services every face (gRPC, HTTP, MCP) hosts. */
export interface BuiltServices {
  /** FileTools, SkillCatalog and Tools, each guarded by guardService (authentication, tier, quota). */
  readonly services: HostedService[];
  /** The guarded Tools ServiceImpl, for a face that calls ListTools and CallTool itself (MCP). */
  readonly tools: ServiceImpl<typeof Tools>;
  readonly security: Security;
  readonly skillCatalog: ReturnType<typeof createSkillCatalogService>;
  /** The guarded SkillCatalog ServiceImpl, for a face that calls its RPCs itself (MCP's skills). */
  readonly guardedSkillCatalog: ServiceImpl<typeof SkillCatalog>;
  readonly history: FileHistory | undefined;
}

/**
 * buildServices checks every start-up input (a ConfigError stops start-up before anything is
 * touched), removes stale temporary files of crashed writes, finishes undos a crash cut short,
 * and builds the services behind the one policy layer (guardService with the CallGate), so that
 * `serve` and `mcp` apply the same authentication, scopes, tiers, quotas and history.
 */
export async function buildServices(config: Config, logger: Logger): Promise<BuiltServices> {
  await checkStartUpInputs(config);
  useStagingJournal(stagingDirOf(config)); // the folder just checked, not whatever the environment says later
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
  const guardedTools = guardService(Tools, tools, gate);
  const guardedSkillCatalog = guardService(SkillCatalog, skillCatalog, gate);
  const services: HostedService[] = [
    { service: FileTools, impl: guardService(FileTools, fileTools, gate) as unknown as ServiceImpl<DescService> },
    {
      service: SkillCatalog,
      impl: guardedSkillCatalog as unknown as ServiceImpl<DescService>,
    },
    { service: Tools, impl: guardedTools as unknown as ServiceImpl<DescService> },
  ];
  return { services, tools: guardedTools, security, skillCatalog, guardedSkillCatalog, history };
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
