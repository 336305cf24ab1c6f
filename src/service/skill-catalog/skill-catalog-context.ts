import type { Limits } from "../../config/config.js";
import type { LiveCatalog } from "../../skills/catalog/live-catalog.js";

/**
 * SkillCatalogContext is what every SkillCatalog handler works with: the live catalog (awaited
 * through `ready` before use, so the first calls after start see the first scan) and the limits.
 */
export interface SkillCatalogContext {
  readonly catalog: LiveCatalog;
  readonly limits: Limits;
  /** Serve files with several hard links (sandbox.allow_hard_links); refused by default. */
  readonly allowHardLinks?: boolean;
}
