import type { McpSkillsContext, SkillRequestExtra } from "./mcp-skills-context.js";
import { skillEntry, skillFiles, type SkillEntry } from "./skill-entry.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { reasonOf, SkillRequestError } from "./skill-errors.js";
import { maxCursorBytes, paramText } from "./skill-requests.js";

/**
 * listSkillsResult answers skills/list: one page of the skills the caller's scope shows
 * (ListSkills, guarded), each a complete entry; a skill over an MCP Skills limit is left out,
 * as is one that left the catalog between the page and its entry. The cursor is ListSkills'
 * page token.
 */
export async function listSkillsResult(
  ctx: McpSkillsContext,
  params: Record<string, unknown> | undefined,
  extra: SkillRequestExtra,
) {
  const cursor = paramText(params, "cursor", false, maxCursorBytes) ?? "";
  const page = await ctx.calls.listSkills(cursor, ctx.pageSize, extra);
  const skills: SkillEntry[] = [];
  for (const skill of page.skills) {
    try {
      const files = await skillFiles(ctx.calls, skill, extra);
      if (files.overLimit === undefined) skills.push(await skillEntry(ctx.calls, files, extra));
    } catch (err) {
      if (!goneSince(err)) throw err;
    }
  }
  return {
    skills,
    ...(page.nextPageToken === "" ? {} : { nextCursor: page.nextPageToken }),
    ttlMs: ctx.ttlMs,
    cacheScope: ctx.cacheScope,
    resultType: "complete",
  };
}

/**
 * goneSince tells a skill that changed between the page and its entry: gone, broken, a file
 * removed, or grown over a limit.
 */
function goneSince(err: unknown): boolean {
  if (err instanceof SkillRequestError) return err.code === ErrorCode.InvalidParams;
  const reason = reasonOf(err);
  return reason === "SKILL_NOT_FOUND" || reason === "INVALID_SKILL" || reason === "NOT_FOUND";
}
