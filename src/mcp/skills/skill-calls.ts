import { create, type DescMethod } from "@bufbuild/protobuf";
import type { ContextValues, ServiceImpl } from "@connectrpc/connect";
import {
  ActivateSkillRequestSchema,
  ListSkillResourcesRequestSchema,
  ListSkillsRequestSchema,
  ReadSkillResourceRequestSchema,
  SkillCatalog,
} from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { ReadMode } from "../../../gen/ts/toolhost/files/v1/read_pb.js";
import { createSha256 } from "../../files/content-hash.js";
import type { SkillSource } from "../../service/skill-catalog/skill-catalog-service.js";
import type { SlotFileDigest } from "../../service/skill-catalog/slot-file-digests.js";
import { mcpCallContext, type McpCaller } from "../mcp-call-context.js";

/** SkillPage is one page of the skills a caller may see. */
export interface SkillPage {
  readonly skills: readonly { readonly name: string; readonly namespace: string; readonly shortName: string }[];
  readonly nextPageToken: string;
}

/** SlotFile is one file of a skill's scripts/, references/ or assets/ folder, path relative to it. */
export interface SlotFile {
  readonly slot: string;
  readonly path: string;
  readonly size: number;
}

/** SlotFileContent is a slot file read whole: its bytes (when kept), size and lowercase hex SHA-256. */
export interface SlotFileContent {
  readonly bytes: Buffer;
  readonly size: number;
  readonly sha256: string;
}

/**
 * CallScope is the MCP request a call is made for: its signal, and where the first call's
 * context values (the admitted caller) are kept for the request's log line.
 */
export interface CallScope {
  readonly signal: AbortSignal;
  readonly admitted?: { values?: ContextValues };
}

/** SkillCallsDeps are the guarded SkillCatalog, the catalog's SKILL.md reader, and the caller. */
export interface SkillCallsDeps {
  /** The SkillCatalog ServiceImpl behind the policy layer (guardService), as `serve` hosts it. */
  readonly catalog: ServiceImpl<typeof SkillCatalog>;
  /** The catalog's SKILL.md reader: called only for a name a guarded call just admitted. */
  readonly readSkillSource: (name: string) => Promise<SkillSource>;
  /** The catalog's slot file hasher: called only for a name a guarded call just admitted. */
  readonly slotFileDigests: (name: string, signal: AbortSignal) => Promise<SlotFileDigest[]>;
  readonly caller: McpCaller;
  readonly shutdownSignal: AbortSignal;
}

/**
 * SkillCalls are the SkillCatalog RPCs the MCP Skills face makes, each through the guarded
 * ServiceImpl with the MCP caller's HandlerContext: authentication, tier, namespace scope and
 * quota apply to every one as they do to gRPC. Every method takes the MCP request's signal.
 */
export class SkillCalls {
  constructor(private readonly deps: SkillCallsDeps) {}

  /** listSkills is one page of ListSkills: the skills the caller's scope shows. */
  async listSkills(pageToken: string, pageSize: number, scope: CallScope): Promise<SkillPage> {
    const response = await this.withContext(SkillCatalog.method.listSkills, scope, (context) =>
      this.deps.catalog.listSkills(create(ListSkillsRequestSchema, { pageToken, pageSize }), context),
    );
    return {
      skills: (response.skills ?? []).map((s) => ({
        name: s.name ?? "",
        namespace: s.namespace ?? "",
        shortName: s.shortName ?? "",
      })),
      nextPageToken: response.nextPageToken ?? "",
    };
  }

  /**
   * slotFiles is ListSkillResources: the admission of a request about one skill (its namespace
   * in the caller's scope, the skill in the catalog) and its slot files as they are now.
   */
  async slotFiles(name: string, scope: CallScope): Promise<SlotFile[]> {
    const response = await this.withContext(SkillCatalog.method.listSkillResources, scope, (context) =>
      this.deps.catalog.listSkillResources(create(ListSkillResourcesRequestSchema, { name }), context),
    );
    return (response.resources ?? []).map((r) => ({
      slot: r.slot ?? "",
      path: r.path ?? "",
      size: Number(r.size ?? 0n),
    }));
  }

  /** skillSource is the SKILL.md of a skill slotFiles admitted in this request. */
  skillSource(name: string): Promise<SkillSource> {
    return this.deps.readSkillSource(name);
  }

  /**
   * slotDigests hashes every slot file of a skill slotFiles admitted in this request, one
   * sandbox per slot (a guarded ReadSkillResource per file would open one per file).
   */
  slotDigests(name: string, scope: CallScope): Promise<SlotFileDigest[]> {
    return this.deps.slotFileDigests(name, scope.signal);
  }

  /**
   * readSlotFile is ReadSkillResource in bytes mode, read whole and hashed as the bytes arrive;
   * the bytes are kept only when `keep` (a read, not a digest). The read stays within the skill
   * limits, which the caller checked from slotFiles.
   */
  async readSlotFile(
    name: string,
    slot: string,
    path: string,
    keep: boolean,
    scope: CallScope,
  ): Promise<SlotFileContent> {
    return this.withContext(SkillCatalog.method.readSkillResource, scope, async (context) => {
      const parts = this.deps.catalog.readSkillResource(
        create(ReadSkillResourceRequestSchema, { name, slot, path, mode: ReadMode.BYTES }),
        context,
      );
      const hash = createSha256();
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const message of parts) {
        const part = message.part;
        if (part?.case === "data" && part.value !== undefined) {
          const chunk = Buffer.from(part.value.buffer, part.value.byteOffset, part.value.byteLength);
          hash.update(chunk);
          size += chunk.byteLength;
          if (keep) chunks.push(chunk);
        }
      }
      return { bytes: Buffer.concat(chunks), size, sha256: hash.digest("hex") };
    });
  }

  /** activate is ActivateSkill for the MCP session: the skill active in that session's catalog view. */
  async activate(name: string, sessionId: string, scope: CallScope): Promise<void> {
    await this.withContext(SkillCatalog.method.activateSkill, scope, (context) =>
      this.deps.catalog.activateSkill(create(ActivateSkillRequestSchema, { name, sessionId }), context),
    );
  }

  /**
   * withContext runs one call with its own HandlerContext and ends the context when the call
   * has: the context listens on the request's and the server's signals until it is aborted, so
   * a context left open would leave a listener on the shutdown signal per call.
   */
  private async withContext<T>(
    method: DescMethod,
    scope: CallScope,
    run: (context: ReturnType<typeof mcpCallContext>) => T | Promise<T>,
  ): Promise<T> {
    const context = mcpCallContext(SkillCatalog, method, this.deps.caller, scope.signal, this.deps.shutdownSignal);
    if (scope.admitted !== undefined) scope.admitted.values ??= context.values;
    try {
      return await run(context);
    } finally {
      context.abort(new Error("the MCP request is done"));
    }
  }
}
