import { skillNameOf } from "./get-skill-handler.js";
import type { McpSkillsContext, SkillRequestExtra } from "./mcp-skills-context.js";
import { isSlotName } from "./read-resource-handler.js";
import { invalidParams } from "./skill-errors.js";
import { refuseOverLimit, skillFiles } from "./skill-entry.js";
import { knownMimeType } from "./skill-mime-type.js";
import { maxCursorBytes, paramText } from "./skill-requests.js";
import { maxSkillUriBytes, parseSkillUri, skillFileName, skillUriOf } from "./skill-uri.js";

/** directoryMimeType is the media type of a directory resource. */
export const directoryMimeType = "inode/directory";

/** DirectoryChild is one direct child of a directory resource. */
interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType?: string;
  readonly size?: number;
}

/**
 * readDirectoryResult answers resources/directory/read: the direct children of a skill's folder
 * (SKILL.md and the resource folders that have files) or of a folder inside scripts/,
 * references/ or assets/ (its files, and its subfolders as inode/directory), as the skill's
 * files are now (ListSkillResources, guarded). Folder URIs have no trailing slash. A URI that
 * is a file, or names nothing this server serves, is -32602. Every listing fits one page (a
 * skill within the limits has at most 512 files), so no cursor is ever handed out.
 */
export async function readDirectoryResult(
  ctx: McpSkillsContext,
  params: Record<string, unknown> | undefined,
  extra: SkillRequestExtra,
) {
  const uri = paramText(params, "uri", true, 2 * maxSkillUriBytes) as string;
  if (paramText(params, "cursor", false, maxCursorBytes) !== undefined) {
    throw invalidParams("resources/directory/read: this server hands out no cursor for directory reads; omit it.");
  }
  const parsed = parseSkillUri(uri);
  const skill = skillNameOf(parsed);
  const [first, ...rest] = parsed.path;
  if (first !== undefined && !isSlotName(first)) {
    throw invalidParams(
      first === skillFileName && rest.length === 0
        ? `${uri} is not a directory resource.`
        : `No directory is served at ${uri}: a skill serves its scripts/, references/ and assets/ folders.`,
    );
  }
  const files = await skillFiles(ctx.calls, skill, extra);
  refuseOverLimit(files);
  const at = (path: readonly string[]) => skillUriOf(skill.namespace, skill.shortName, path);
  if (first === undefined) {
    const slots = [...new Set(files.slotFiles.map((f) => f.slot))].sort();
    const resources: DirectoryChild[] = [
      { uri: at([skillFileName]), name: skillFileName, mimeType: "text/markdown", size: files.source.size },
      ...slots.map((slot) => ({ uri: at([slot]), name: slot, mimeType: directoryMimeType })),
    ];
    return { resources, resultType: "complete" };
  }
  const prefix = rest.length === 0 ? "" : `${rest.join("/")}/`;
  const children = new Map<string, DirectoryChild>();
  let isFile = false;
  for (const file of files.slotFiles) {
    if (file.slot !== first) continue;
    if (file.path === rest.join("/")) isFile = true;
    if (!file.path.startsWith(prefix)) continue;
    const [name, ...below] = file.path.slice(prefix.length).split("/") as [string, ...string[]];
    if (children.has(name)) continue;
    children.set(
      name,
      below.length === 0
        ? { uri: at([first, ...rest, name]), name, ...mimeTypeField(name), size: file.size }
        : { uri: at([first, ...rest, name]), name, mimeType: directoryMimeType },
    );
  }
  if (children.size === 0) {
    throw invalidParams(isFile ? `${uri} is not a directory resource.` : `No directory is served at ${uri}.`);
  }
  const resources = [...children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { resources, resultType: "complete" };
}

/** mimeTypeField is a file child's mimeType when its extension tells it (the field is optional). */
function mimeTypeField(name: string): { mimeType?: string } {
  const mimeType = knownMimeType(name);
  return mimeType === undefined ? {} : { mimeType };
}
