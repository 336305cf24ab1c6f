import type { CallScope, SkillCalls } from "./skill-calls.js";
import type { SkillReadBudget } from "./skill-read-budget.js";

/** McpSkillsContext is what every MCP Skills handler works with. */
export interface McpSkillsContext {
  readonly calls: SkillCalls;
  /** "private" when the caller may authenticate (what a listing shows depends on its scope). */
  readonly cacheScope: "public" | "private";
  /** How many catalog skills one skills/list page covers (fewer entries when some are left out). */
  readonly pageSize: number;
  /** The freshness hint of skills/list and skills/get results. */
  readonly ttlMs: number;
  /** The activation session of a request, from its transport's session id; undefined: none. */
  readonly activationSession: (transportSessionId: string | undefined) => string | undefined;
  /** The bound on the file bytes this server's resources/read results hold; undefined: none. */
  readonly readBudget?: SkillReadBudget | undefined;
}

/** SkillRequestExtra is the part of the SDK's RequestHandlerExtra the handlers use, as a CallScope. */
export interface SkillRequestExtra extends CallScope {
  readonly sessionId?: string | undefined;
}
