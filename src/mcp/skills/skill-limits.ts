/**
 * The MCP Skills extension's per-skill limits: hosts must accept skills up to them, and a server
 * should not serve a skill over either (it is left out of skills/list, and skills/get and reads
 * of its files are refused naming the limit).
 */
export const maxSkillResources = 512;
export const maxSkillTotalBytes = 16 * 1024 * 1024;

/** SkillSize is what the limits count: the skill's files, SKILL.md included, and their bytes. */
export interface SkillSize {
  readonly files: number;
  readonly bytes: number;
}

/**
 * overLimit says which limit a skill exceeds, as a sentence naming the limit, or undefined when
 * it is within both.
 */
export function overLimit(size: SkillSize): string | undefined {
  if (size.files > maxSkillResources) {
    return `it has ${size.files} files, over the MCP Skills limit of ${maxSkillResources} files per skill`;
  }
  if (size.bytes > maxSkillTotalBytes) {
    return `its files hold ${size.bytes} bytes, over the MCP Skills limit of ${maxSkillTotalBytes} bytes (16 MiB) per skill`;
  }
  return undefined;
}
