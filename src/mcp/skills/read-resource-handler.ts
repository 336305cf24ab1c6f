import { resourceSlotNames } from "../../skills/skill-types.js";
import { skillNameOf } from "./get-skill-handler.js";
import type { McpSkillsContext, SkillRequestExtra } from "./mcp-skills-context.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { invalidParams, SkillRequestError } from "./skill-errors.js";
import type { SkillReadBudget } from "./skill-read-budget.js";
import { refuseOverLimit, skillFiles } from "./skill-entry.js";
import { mimeTypeOf, textOf } from "./skill-mime-type.js";
import { isSkillFile, parseSkillUri } from "./skill-uri.js";

/** isSlotName tells whether a URI segment is one of the three resource folders. */
export function isSlotName(segment: string | undefined): boolean {
  return resourceSlotNames.some((slot) => slot === segment);
}

/**
 * readResourceResult answers resources/read of a skill URI: SKILL.md as text/markdown, which
 * also activates the skill in the request's activation session (ActivateSkill, guarded); a file
 * of scripts/, references/ or assets/ through the guarded ReadSkillResource, as `text` when its
 * bytes are UTF-8 text, else base64 `blob`. Anything else is -32602: another scheme, a folder
 * (read with resources/directory/read), a file outside those folders, a skill not served, over a
 * limit or out of the caller's scope.
 */
export async function readResourceResult(ctx: McpSkillsContext, uri: string, extra: SkillRequestExtra) {
  const parsed = parseSkillUri(uri);
  const skill = skillNameOf(parsed);
  const [first, ...rest] = parsed.path;
  if (first === undefined || (isSlotName(first) && rest.length === 0)) {
    throw invalidParams(`${uri} is a folder, a directory resource: list it with resources/directory/read.`);
  }
  if (!isSkillFile(parsed) && !isSlotName(first)) {
    throw invalidParams(
      `No skill file is served at ${uri}: a skill serves its SKILL.md and the files of its scripts/, references/ and assets/ folders.`,
    );
  }
  const files = await skillFiles(ctx.calls, skill, extra);
  refuseOverLimit(files);
  const listed = isSkillFile(parsed)
    ? files.source.size
    : (files.slotFiles.find((f) => f.slot === first && f.path === rest.join("/"))?.size ?? 0);
  takeFromBudget(ctx.readBudget, listed, uri);
  if (isSkillFile(parsed)) {
    const session = ctx.activationSession(extra.sessionId);
    if (session !== undefined) await ctx.calls.activate(skill.name, session, extra);
    return { contents: [{ uri, mimeType: "text/markdown", text: files.source.text }] };
  }
  const read = await ctx.calls.readSlotFile(skill.name, first, rest.join("/"), true, extra);
  // A file that grew since it was listed is charged what was read.
  if (read.size > listed) takeFromBudget(ctx.readBudget, read.size - listed, uri);
  const text = textOf(read.bytes);
  const mimeType = mimeTypeOf(rest[rest.length - 1] ?? "", text !== undefined);
  return {
    contents: [text === undefined ? { uri, mimeType, blob: read.bytes.toString("base64") } : { uri, mimeType, text }],
  };
}

/**
 * takeFromBudget charges a read's bytes to the request's budget, refusing the read (-32600,
 * QUOTA_EXCEEDED) when the request's results already hold as many file bytes as it allows.
 */
function takeFromBudget(budget: SkillReadBudget | undefined, bytes: number, uri: string): void {
  if (budget === undefined || budget.take(bytes)) return;
  throw new SkillRequestError(
    ErrorCode.InvalidRequest,
    `QUOTA_EXCEEDED: reading ${uri} would take this request's results over ${budget.max} bytes of skill files; read it in a request of its own (one JSON-RPC message per POST).`,
    { reason: "QUOTA_EXCEEDED" },
  );
}
