import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { pageSkills } from "../../skills/list-skills-page.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { summaryMessage } from "./skill-messages.js";

/** listSkillsHandler serves ListSkills: tier 1, filtered and paged, never a body. */
export function listSkillsHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["listSkills"] {
  return async (request) => {
    await ctx.catalog.ready;
    const page = pageSkills(ctx.catalog.index.skills(), request);
    const active = ctx.catalog.activations.activeNames(request.sessionId);
    return { skills: page.skills.map((s) => summaryMessage(s, active.has(s.name))), nextPageToken: page.nextPageToken };
  };
}
