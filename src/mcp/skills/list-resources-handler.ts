import type { McpSkillsContext, SkillRequestExtra } from "./mcp-skills-context.js";
import { reasonOf } from "./skill-errors.js";
import { skillFiles } from "./skill-entry.js";
import { frontmatterObject } from "../../skills/parse/frontmatter-object.js";
import { maxCursorBytes } from "./skill-requests.js";
import { skillFileUriOf } from "./skill-uri.js";

/** resourcesPageSize is how many catalog skills one resources/list page covers. */
export const resourcesPageSize = 100;

/**
 * listResourcesResult answers resources/list: the SKILL.md of each skill the caller's scope
 * shows (ListSkills, guarded), named and described from its frontmatter, as the extension's
 * resource metadata asks; a skill over an MCP Skills limit is left out. The cursor is ListSkills'
 * page token.
 */
export async function listResourcesResult(ctx: McpSkillsContext, cursor: string | undefined, extra: SkillRequestExtra) {
  const token = cursor === undefined ? "" : cursor.slice(0, maxCursorBytes + 1);
  const page = await ctx.calls.listSkills(token, resourcesPageSize, extra);
  const resources = [];
  for (const skill of page.skills) {
    try {
      const files = await skillFiles(ctx.calls, skill, extra);
      if (files.overLimit !== undefined) continue;
      const description = frontmatterObject(files.source.text)?.["description"];
      resources.push({
        uri: skillFileUriOf(skill.namespace, skill.shortName),
        name: skill.shortName,
        ...(typeof description === "string" ? { description } : {}),
        mimeType: "text/markdown",
        size: files.source.size,
      });
    } catch (err) {
      const reason = reasonOf(err);
      if (reason !== "SKILL_NOT_FOUND" && reason !== "INVALID_SKILL") throw err;
    }
  }
  return { resources, ...(page.nextPageToken === "" ? {} : { nextCursor: page.nextPageToken }) };
}
