import type { ServiceImpl } from "@connectrpc/connect";
import { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { Limits, SkillRootConfig } from "../../config/config.js";
import { LiveCatalog } from "../../skills/catalog/live-catalog.js";
import { withErrorMapping } from "../with-error-mapping.js";
import { activateSkillHandler, deactivateSkillHandler } from "./activate-skill.js";
import { getSkillDescriptorHandler } from "./get-skill-descriptor.js";
import { listSkillErrorsHandler } from "./list-skill-errors.js";
import { listSkillResourcesHandler } from "./list-skill-resources.js";
import { listSkillsHandler } from "./list-skills.js";
import { readSkillResourceHandler } from "./read-skill-resource.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { DigestCache } from "./digest-cache.js";
import { slotFileDigests, type SlotFileDigest } from "./slot-file-digests.js";
import { validateSkillHandler } from "./validate-skill.js";
import { watchSkillsHandler } from "./watch-skills.js";

/** SkillCatalogLogger is the part of a pino logger the catalog uses. */
export interface SkillCatalogLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** SkillCatalogDeps is what the SkillCatalog handlers need. */
export interface SkillCatalogDeps {
  readonly skillRoots: readonly SkillRootConfig[];
  readonly limits: Limits;
  /** Where load summaries and watcher errors go; silent when absent. */
  readonly logger?: SkillCatalogLogger;
  /** Watch the skill roots and reload on change; default true. */
  readonly watch?: boolean;
  /** Quiet time after the last change before the catalog reloads, in ms; default 150. */
  readonly debounceMs?: number;
  /** Deepest folder level searched below a skill root (default 8) and most folders per root (default 50,000). */
  readonly scan?: { readonly maxDepth?: number; readonly maxFolders?: number };
  /** Read and serve files with several hard links (sandbox.allow_hard_links); default false. */
  readonly allowHardLinks?: boolean;
}

/** SkillCatalogService is the ServiceImpl plus what the server needs to run and stop it. */
export type SkillCatalogService = ServiceImpl<typeof SkillCatalog> & {
  /** Resolves once the first scan is in (every handler also waits for it). */
  readonly ready: Promise<void>;
  /** Stops the watchers. */
  close(): Promise<void>;
  /** How many skills the catalog holds now, and how many folders failed to load. */
  counts(): { skills: number; errors: number };
  /**
   * The SKILL.md of a catalog skill as it is now: its text and the SHA-256 (hex) and size of
   * its bytes. Not an RPC and not guarded: a face calls it only for a name a guarded call of
   * the same request was just admitted for (the MCP face's skills/get and resources/read).
   */
  readSkillSource(name: string): Promise<SkillSource>;
  /**
   * The slot files of a catalog skill as they are now, each hashed through its slot's sandbox.
   * Not an RPC and not guarded, like readSkillSource.
   */
  slotFileDigests(name: string, signal: AbortSignal): Promise<SlotFileDigest[]>;
  /** Calls `listener` after every reload that changed the catalog; returns the unsubscribe. */
  onCatalogChange(listener: () => void): () => void;
};

/** SkillSource is a SKILL.md read whole: text, lowercase hex SHA-256 of its bytes, and size. */
export interface SkillSource {
  readonly text: string;
  readonly digest: string;
  readonly size: number;
}

/**
 * createSkillCatalogService builds the SkillCatalog ServiceImpl that both transports host. It
 * returns at once and scans the skill roots in the background; each handler waits for that
 * first scan, so a call made right after start already sees the skills.
 */
export function createSkillCatalogService(deps: SkillCatalogDeps): SkillCatalogService {
  const logger = deps.logger;
  const catalog = new LiveCatalog({
    roots: deps.skillRoots.map((root) => ({ path: root.path, namespace: root.namespace })),
    maxSkillFileBytes: deps.limits.maxSkillFileBytes,
    maxActivatedBytes: deps.limits.maxActivatedBytes,
    watch: deps.watch,
    debounceMs: deps.debounceMs,
    maxWaitMs: deps.limits.skillReloadMaxWaitMs,
    maxDepth: deps.scan?.maxDepth,
    maxFolders: deps.scan?.maxFolders,
    allowHardLinks: deps.allowHardLinks === true,
    onError: (err, context) => logger?.error({ err }, context),
  });
  const ready = catalog.ready.then(
    () => {
      logger?.info(
        { skills: catalog.index.skills().length, errors: catalog.index.errors().length },
        "skill catalog loaded",
      );
      for (const error of catalog.index.errors()) {
        logger?.warn({ path: error.path, field: error.field, line: error.line }, `skill not loaded: ${error.message}`);
      }
    },
    (err: unknown) => {
      logger?.error({ err }, "skill catalog failed to load");
      throw err;
    },
  );
  // A failed first scan is reported to every call; an unobserved rejection must not crash start.
  ready.catch(() => {});
  const ctx: SkillCatalogContext = { catalog, limits: deps.limits, allowHardLinks: deps.allowHardLinks === true };
  const impl = withErrorMapping(SkillCatalog, {
    listSkills: listSkillsHandler(ctx),
    activateSkill: activateSkillHandler(ctx),
    deactivateSkill: deactivateSkillHandler(ctx),
    getSkillDescriptor: getSkillDescriptorHandler(ctx),
    listSkillResources: listSkillResourcesHandler(ctx),
    readSkillResource: readSkillResourceHandler(ctx),
    validateSkill: validateSkillHandler(ctx),
    watchSkills: watchSkillsHandler(ctx),
    listSkillErrors: listSkillErrorsHandler(ctx),
  });
  const counts = () => ({ skills: catalog.index.skills().length, errors: catalog.index.errors().length });
  const digests = new DigestCache();
  const readSkillSource = async (name: string): Promise<SkillSource> => {
    await ready;
    const { read } = await catalog.index.readSource(name);
    return { text: read.text, digest: read.digest, size: read.size };
  };
  const onCatalogChange = (listener: () => void) => catalog.index.subscribe(() => listener());
  return Object.assign(impl, {
    ready,
    close: () => catalog.close(),
    counts,
    readSkillSource,
    slotFileDigests: (name: string, signal: AbortSignal) => slotFileDigests(ctx, name, signal, digests),
    onCatalogChange,
  });
}
