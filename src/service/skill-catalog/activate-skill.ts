import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { checkSessionId } from "../../skills/catalog/session-id.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { skillMessage } from "./skill-messages.js";
import { requireNamespace } from "./namespace-scope.js";
import { callerSession } from "./caller-session.js";

/**
 * activateSkillHandler serves ActivateSkill: tier 2. SKILL.md is read again so the body is the
 * file as it is now, and the activation is remembered for the session.
 */
export function activateSkillHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["activateSkill"] {
  return async (request, context) => {
    // Checked first, so an oversized session_id is refused before any file is read.
    checkSessionId(request.sessionId);
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    const { skill, parsed } = await ctx.catalog.index.readFull(request.name);
    ctx.catalog.activations.activate(callerSession(context, request.sessionId), skill.name, skill.digest, parsed.body);
    return { skill: skillMessage(parsed, skill, true, skill.digest) };
  };
}

/**
 * deactivateSkillHandler serves DeactivateSkill. Dropping an activation works even if the skill
 * has since left the catalog; only a name that is neither active nor known is an error.
 */
export function deactivateSkillHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["deactivateSkill"] {
  return async (request, context) => {
    checkSessionId(request.sessionId);
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    const wasActive =
      request.name !== "" &&
      ctx.catalog.activations.deactivate(callerSession(context, request.sessionId), request.name);
    if (!wasActive) {
      ctx.catalog.index.get(request.name);
    }
    return { wasActive };
  };
}
