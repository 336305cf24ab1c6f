import { createHash } from "node:crypto";

/** functionNamePattern is what OpenAI's and Anthropic's APIs accept as a tool's function name. */
export const functionNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

const maxLength = 64;

/**
 * functionNameOf turns a tool's seed name into a name model APIs accept. A built-in tool drops
 * its prefix and writes dashes as underscores ("skill/file-read" is "file_read",
 * "catalog/activate-skill" is "activate_skill"); a skill's "namespace/short-name" becomes
 * "namespace__short-name" — a double underscore no built-in name has, so a skill can never take
 * a built-in tool's function name, whatever it is called. Any other character becomes "_". A
 * name over 64 characters, or one that had other characters, keeps its first 55 and ends in "_"
 * plus 8 hex digits of the seed name's sha256, so two long names that share a beginning, or two
 * names in another script, still differ.
 */
export function functionNameOf(seedName: string, kind: "builtin" | "skill"): string {
  const base =
    kind === "builtin" ? seedName.slice(seedName.indexOf("/") + 1).replace(/-/g, "_") : seedName.replace("/", "__");
  const safe = base.replace(/[^a-zA-Z0-9_-]/g, "_") || "_";
  // A name in another script ("ns/技能") keeps nothing of itself once its letters are "_": the
  // digest keeps two such skills apart, and each keeps its function name across reloads.
  if (safe.length <= maxLength && safe === base) return safe;
  const digest = createHash("sha256").update(seedName).digest("hex").slice(0, 8);
  return `${safe.slice(0, maxLength - 9)}_${digest}`;
}
