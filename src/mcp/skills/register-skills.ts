import type { ServiceImpl } from "@connectrpc/connect";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { SkillCatalogService } from "../../service/skill-catalog/skill-catalog-service.js";
import type { McpCaller } from "../mcp-call-context.js";
import { getSkillResult } from "./get-skill-handler.js";
import { listResourcesResult } from "./list-resources-handler.js";
import { listSkillsResult } from "./list-skills-handler.js";
import type { McpSkillsContext } from "./mcp-skills-context.js";
import { readDirectoryResult } from "./read-directory-handler.js";
import { readResourceResult } from "./read-resource-handler.js";
import { SkillCalls } from "./skill-calls.js";
import { mcpSkillError } from "./skill-errors.js";
import {
  ResourcesDirectoryReadRequestSchema,
  SkillsGetRequestSchema,
  SkillsListRequestSchema,
} from "./skill-requests.js";

/** skillsExtension is the MCP Skills extension's identifier in capabilities.extensions. */
export const skillsExtension = "io.modelcontextprotocol/skills";

/**
 * defaultSkillsPageSize is how many catalog skills one skills/list page covers: each entry hashes
 * every file of its skill, so a page is kept small.
 */
export const defaultSkillsPageSize = 50;

/** skillsTtlMs is the freshness hint of skills/list and skills/get: changes are also notified. */
export const skillsTtlMs = 30_000;

/** McpSkillsOptions are what the MCP face needs to serve the skill catalog. */
export interface McpSkillsOptions {
  /** The SkillCatalog ServiceImpl behind the policy layer (guardService), as `serve` hosts it. */
  readonly catalog: ServiceImpl<typeof SkillCatalog>;
  /** The catalog's SKILL.md reader and change hook (not RPCs; see SkillCatalogService). */
  readonly source: Pick<SkillCatalogService, "readSkillSource" | "slotFileDigests" | "onCatalogChange">;
  /**
   * The activation session of a request, from its transport's session id (stdio: the process's
   * one session; Streamable HTTP: the Mcp-Session-Id); undefined: the read activates nothing.
   * Default: the transport's session id.
   */
  readonly activationSession?: (transportSessionId: string | undefined) => string | undefined;
  /** Catalog skills per skills/list page; default defaultSkillsPageSize. */
  readonly pageSize?: number;
}

/**
 * registerSkills serves the skill catalog on an MCP server as the MCP Skills extension
 * (io.modelcontextprotocol/skills, with directoryRead): skills/list, skills/get, and skill files
 * as resources (resources/list, resources/read, resources/directory/read) under skill:// URIs.
 * Every request goes through the guarded SkillCatalog with the session's caller, so scopes,
 * tiers and quotas apply as on gRPC; a catalog reload that changed something is told to the
 * client as notifications/resources/list_changed. Call it before the server connects.
 */
export function registerSkills(
  server: Server,
  options: McpSkillsOptions,
  caller: McpCaller,
  shutdownSignal: AbortSignal,
): void {
  server.registerCapabilities({
    resources: { listChanged: true },
    extensions: { [skillsExtension]: { directoryRead: true } },
  });
  const ctx: McpSkillsContext = {
    calls: new SkillCalls({
      catalog: options.catalog,
      readSkillSource: options.source.readSkillSource,
      slotFileDigests: options.source.slotFileDigests,
      caller,
      shutdownSignal,
    }),
    cacheScope: caller.authorization === undefined ? "public" : "private",
    pageSize: options.pageSize ?? defaultSkillsPageSize,
    ttlMs: skillsTtlMs,
    activationSession: options.activationSession ?? ((id) => id),
  };
  server.setRequestHandler(SkillsListRequestSchema, (request, extra) =>
    listSkillsResult(ctx, request.params, extra).catch((err: unknown) => {
      throw mcpSkillError(err, "skills/list");
    }),
  );
  server.setRequestHandler(SkillsGetRequestSchema, (request, extra) =>
    getSkillResult(ctx, request.params, extra).catch((err: unknown) => {
      throw mcpSkillError(err, String(request.params?.["uri"] ?? "skills/get"));
    }),
  );
  server.setRequestHandler(ListResourcesRequestSchema, (request, extra) =>
    listResourcesResult(ctx, request.params?.cursor, extra).catch((err: unknown) => {
      throw mcpSkillError(err, "resources/list");
    }),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    readResourceResult(ctx, request.params.uri, extra).catch((err: unknown) => {
      throw mcpSkillError(err, request.params.uri);
    }),
  );
  server.setRequestHandler(ResourcesDirectoryReadRequestSchema, (request, extra) =>
    readDirectoryResult(ctx, request.params, extra).catch((err: unknown) => {
      throw mcpSkillError(err, String(request.params?.["uri"] ?? "resources/directory/read"));
    }),
  );
  const unsubscribe = options.source.onCatalogChange(() => {
    if (server.transport === undefined) return;
    server.sendResourceListChanged().catch(() => undefined);
  });
  shutdownSignal.addEventListener("abort", unsubscribe, { once: true });
}
