import type { SkillSource } from "../../service/skill-catalog/skill-catalog-service.js";
import { frontmatterObject } from "../../skills/parse/frontmatter-object.js";
import type { StructuredMap } from "../../skills/skill-types.js";
import type { CallScope, SkillCalls, SlotFile } from "./skill-calls.js";
import { invalidParams } from "./skill-errors.js";
import { overLimit } from "./skill-limits.js";
import { skillFileUriOf, skillUriOf } from "./skill-uri.js";

/** SkillResourceEntry is one file of a skill entry: its URI, "sha256:<hex>" digest and size. */
export interface SkillResourceEntry {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
}

/** SkillEntry is the MCP Skills extension's entry for one skill, as skills/list and skills/get give it. */
export interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: StructuredMap;
  readonly resources: readonly SkillResourceEntry[];
}

/** SkillName is a catalog skill's qualified name in its two parts. */
export interface SkillName {
  readonly name: string;
  readonly namespace: string;
  readonly shortName: string;
}

/** SkillFiles are a skill's SKILL.md and slot files as they are now, admitted for the caller. */
export interface SkillFiles {
  readonly skill: SkillName;
  readonly source: SkillSource;
  readonly slotFiles: readonly SlotFile[];
  /** Why the skill is over an MCP Skills limit, or undefined when it is within both. */
  readonly overLimit: string | undefined;
}

/**
 * skillFiles admits a request about one skill through the guarded ListSkillResources (scope,
 * tier, quota, and the skill's existence) and then reads its SKILL.md, so what follows knows
 * every file the skill has, with sizes, and whether it is within the extension's limits.
 */
export async function skillFiles(calls: SkillCalls, skill: SkillName, scope: CallScope): Promise<SkillFiles> {
  const slotFiles = await calls.slotFiles(skill.name, scope);
  const source = await calls.skillSource(skill.name);
  const bytes = slotFiles.reduce((sum, f) => sum + f.size, source.size);
  return { skill, source, slotFiles, overLimit: overLimit({ files: slotFiles.length + 1, bytes }) };
}

/** refuseOverLimit throws the -32602 for a skill over a limit, naming the limit. */
export function refuseOverLimit(files: SkillFiles): void {
  if (files.overLimit !== undefined) {
    throw invalidParams(
      `The skill ${skillFileUriOf(files.skill.namespace, files.skill.shortName)} is not served over MCP: ${files.overLimit}.`,
    );
  }
}

/** slotFileUri is the URI of one slot file: skill://<namespace>/<short-name>/<slot>/<path>. */
export function slotFileUri(skill: SkillName, file: Pick<SlotFile, "slot" | "path">): string {
  return skillUriOf(skill.namespace, skill.shortName, [file.slot, ...file.path.split("/")]);
}

/**
 * skillEntry builds a skill's entry: its verbatim frontmatter and every file it serves, SKILL.md
 * first, each with the SHA-256 and size of the bytes read now (the slot files listed and hashed
 * again through their slots' sandboxes). A skill that grew over a limit since `files` was read
 * is refused as one over it.
 */
export async function skillEntry(calls: SkillCalls, files: SkillFiles, scope: CallScope): Promise<SkillEntry> {
  const { skill, source } = files;
  const uri = skillFileUriOf(skill.namespace, skill.shortName);
  const digests = await calls.slotDigests(skill.name, scope);
  refuseOverLimit({
    ...files,
    overLimit: overLimit({ files: digests.length + 1, bytes: digests.reduce((sum, d) => sum + d.size, source.size) }),
  });
  const resources: SkillResourceEntry[] = [
    { uri, digest: `sha256:${source.digest}`, size: source.size },
    ...digests.map((d) => ({ uri: slotFileUri(skill, d), digest: `sha256:${d.sha256}`, size: d.size })),
  ];
  return { uri, frontmatter: frontmatterObject(source.text) ?? {}, resources };
}
