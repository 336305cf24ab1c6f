import { Code, ConnectError, type ContextValues, createContextValues, type ServiceImpl } from "@connectrpc/connect";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { SkillCatalogService } from "../../service/skill-catalog/skill-catalog-service.js";
import type { McpCaller } from "../mcp-call-context.js";
import { getSkillResult } from "./get-skill-handler.js";
import { listResourcesResult } from "./list-resources-handler.js";
import { listSkillsResult } from "./list-skills-handler.js";
import type { McpSkillsContext, SkillRequestExtra } from "./mcp-skills-context.js";
import { readDirectoryResult } from "./read-directory-handler.js";
import { readResourceResult } from "./read-resource-handler.js";
import { SkillCalls } from "./skill-calls.js";
import { SkillReadBudget } from "./skill-read-budget.js";
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

/** skillTemplates are the URI templates of skill files, for resources/templates/list. */
const skillTemplates = [
  {
    uriTemplate: "skill://{namespace}/{name}/SKILL.md",
    name: "skill",
    description: "A skill's SKILL.md; skills/list and skills/get give its entry with every file's digest.",
    mimeType: "text/markdown",
  },
  {
    uriTemplate: "skill://{namespace}/{name}/{slot}/{+path}",
    name: "skill-file",
    description: "A file of a skill's scripts, references or assets folder.",
  },
];

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
  /**
   * The most file bytes the server's resources/read results may hold in all (SkillReadBudget);
   * undefined: no bound beyond the per-skill limits. For a server that lives for one request.
   */
  readonly maxReadBytes?: number;
  /** Catalog skills per skills/list page; default defaultSkillsPageSize. */
  readonly pageSize?: number;
  /**
   * Send notifications/resources/list_changed on catalog changes (default true). False for a
   * server that lives for one stateless HTTP request, which has no stream to send them on.
   */
  readonly notifyChanges?: boolean;
}

/**
 * SkillRequestEnded is what one skills request reports when it ends, for its log line: the MCP
 * method, the gRPC code of its outcome (0 when it answered), and the context values of its first
 * SkillCatalog call (the admitted caller). The shape of create-mcp-server's McpCallEnded.
 */
export interface SkillRequestEnded {
  readonly method: string;
  readonly code: number;
  readonly error: ConnectError | undefined;
  readonly durationMs: number;
  readonly bytesIn: number;
  /** The bytes of the file content answered (resources/read); 0 for the other methods. */
  readonly bytesOut: number;
  readonly requestId: string;
  readonly values: ContextValues;
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
  onRequestEnd?: (ended: SkillRequestEnded) => void,
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
    // What a listing shows depends on the caller's scope once callers authenticate (a token, or
    // over HTTPS a client certificate): such answers are not to be shared.
    cacheScope: caller.authorization === undefined && caller.contextValues === undefined ? "public" : "private",
    pageSize: options.pageSize ?? defaultSkillsPageSize,
    ttlMs: skillsTtlMs,
    activationSession: options.activationSession ?? ((id) => id),
    readBudget: options.maxReadBytes === undefined ? undefined : new SkillReadBudget(options.maxReadBytes),
  };
  const serve = servedWith(onRequestEnd);
  server.setRequestHandler(
    SkillsListRequestSchema,
    serve(
      "skills/list",
      () => "skills/list",
      (request, extra) => listSkillsResult(ctx, request.params, extra),
    ),
  );
  server.setRequestHandler(
    SkillsGetRequestSchema,
    serve("skills/get", uriParam, (request, extra) => getSkillResult(ctx, request.params, extra)),
  );
  server.setRequestHandler(
    ListResourcesRequestSchema,
    serve(
      "resources/list",
      () => "resources/list",
      (request, extra) => listResourcesResult(ctx, request.params?.cursor, extra),
    ),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    serve("resources/read", uriParam, (request, extra) => readResourceResult(ctx, request.params.uri, extra)),
  );
  server.setRequestHandler(
    ResourcesDirectoryReadRequestSchema,
    serve("resources/directory/read", uriParam, (request, extra) => readDirectoryResult(ctx, request.params, extra)),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: skillTemplates }));
  if (options.notifyChanges === false) return;
  const unsubscribe = options.source.onCatalogChange(() => {
    if (server.transport === undefined) return;
    server.sendResourceListChanged().catch(() => undefined);
  });
  shutdownSignal.addEventListener("abort", unsubscribe, { once: true });
}

/** uriParam is a request's params.uri as the client sent it, for error messages. */
function uriParam(params: unknown): string {
  return String((params as { uri?: unknown } | undefined)?.uri ?? "");
}

/** SdkExtra is the part of the SDK's RequestHandlerExtra a skills request uses. */
interface SdkExtra {
  readonly signal: AbortSignal;
  readonly sessionId?: string | undefined;
  readonly requestId: string | number;
}

/**
 * servedWith wraps a skills handler: it runs it with the request's CallScope, maps what it
 * fails with to its JSON-RPC error (mcpSkillError) and reports the request's end.
 */
function servedWith(onRequestEnd: ((ended: SkillRequestEnded) => void) | undefined) {
  return <Q extends { params?: unknown }, R>(
    method: string,
    what: (params: unknown) => string,
    run: (request: Q, extra: SkillRequestExtra) => Promise<R>,
  ) =>
    async (request: Q, extra: SdkExtra): Promise<R> => {
      const started = process.hrtime.bigint();
      const admitted: { values?: ContextValues } = {};
      const scope: SkillRequestExtra = { signal: extra.signal, sessionId: extra.sessionId, admitted };
      const end = (bytesOut: number, error?: ConnectError) =>
        onRequestEnd?.({
          method,
          code: error?.code ?? 0,
          error,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          bytesIn: 0,
          bytesOut,
          requestId: String(extra.requestId),
          values: admitted.values ?? createContextValues(),
        });
      try {
        const result = await run(request, scope);
        end(contentBytes(result));
        return result;
      } catch (err) {
        const refused = mcpSkillError(err, what(request.params));
        end(0, err instanceof ConnectError ? err : new ConnectError(refused.message, grpcCodeOf(refused.code)));
        throw refused;
      }
    };
}

/** contentBytes is the length of the text and blobs of a resources/read result; 0 for others. */
function contentBytes(result: unknown): number {
  const contents = (result as { contents?: { text?: string; blob?: string }[] }).contents;
  return (contents ?? []).reduce((sum, c) => sum + (c.text?.length ?? 0) + (c.blob?.length ?? 0), 0);
}

/** grpcCodeOf is the gRPC code a JSON-RPC error of this face is logged with. */
function grpcCodeOf(code: number): Code {
  return code === ErrorCode.InvalidParams
    ? Code.InvalidArgument
    : code === ErrorCode.InvalidRequest
      ? Code.PermissionDenied
      : Code.Internal;
}
