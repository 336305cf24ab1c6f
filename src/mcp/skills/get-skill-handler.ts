import type { McpSkillsContext, SkillRequestExtra } from "./mcp-skills-context.js";
import { invalidParams } from "./skill-errors.js";
import { refuseOverLimit, skillEntry, skillFiles, type SkillName } from "./skill-entry.js";
import { paramText } from "./skill-requests.js";
import { isSkillFile, maxSkillUriBytes, parseSkillUri, qualifiedName, type SkillUri } from "./skill-uri.js";

/** skillNameOf is the catalog name of a parsed skill URI's skill. */
export function skillNameOf(uri: SkillUri): SkillName {
  return { name: qualifiedName(uri), namespace: uri.namespace, shortName: uri.shortName };
}

/**
 * getSkillResult answers skills/get: the entry of the skill whose SKILL.md the URI names, or
 * -32602 for anything else (another URI, a skill not served or out of the caller's scope, a
 * skill over a limit).
 */
export async function getSkillResult(
  ctx: McpSkillsContext,
  params: Record<string, unknown> | undefined,
  extra: SkillRequestExtra,
) {
  const uri = paramText(params, "uri", true, 2 * maxSkillUriBytes) as string;
  const parsed = parseSkillUri(uri);
  if (!isSkillFile(parsed)) {
    throw invalidParams(`${uri} is not a skill's SKILL.md: skills/get takes skill://<namespace>/<name>/SKILL.md.`);
  }
  const files = await skillFiles(ctx.calls, skillNameOf(parsed), extra);
  refuseOverLimit(files);
  const skill = await skillEntry(ctx.calls, files, extra);
  return { skill, ttlMs: ctx.ttlMs, cacheScope: ctx.cacheScope, resultType: "complete" };
}
