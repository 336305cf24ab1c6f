import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { pageSkills } from "../../skills/catalog/list-skills-page.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { summaryMessage } from "./skill-messages.js";
import { requireNamespace, visibleNamespace } from "./namespace-scope.js";
import { callerSession } from "./caller-session.js";
import { checkSessionId } from "../../skills/catalog/session-id.js";

/** listSkillsHandler serves ListSkills: tier 1, filtered and paged, never a body. */
export function listSkillsHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["listSkills"] {
  return async (request, context) => {
    requireNamespace(context, request.namespace, "namespace");
    await ctx.catalog.ready;
    const visible = ctx.catalog.index.skills().filter((s) => visibleNamespace(context, s.namespace));
    const page = pageSkills(visible, request);
    checkSessionId(request.sessionId);
    const active = ctx.catalog.activations.activeNames(callerSession(context, request.sessionId));
    return { skills: page.skills.map((s) => summaryMessage(s, active.has(s.name))), nextPageToken: page.nextPageToken };
  };
}
