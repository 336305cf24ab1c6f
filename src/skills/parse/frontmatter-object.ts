import { parseYamlSafely } from "./parse-yaml-safely.js";
import { quoteColonValues } from "./quote-colon-values.js";
import { isFrontmatterProblem, splitFrontmatter } from "./split-frontmatter.js";
import { toStructuredMap } from "./structured-value.js";
import type { StructuredMap } from "../skill-types.js";

/**
 * frontmatterObject is a SKILL.md's YAML frontmatter as a JSON object, every field as written
 * (not the normalised fields parseSkill keeps): what the MCP Skills extension hands out as a
 * skill's `frontmatter`. It reads the YAML exactly as parseSkill does (same limits, and the same
 * second reading of an unquoted ": " value), so a SKILL.md the catalog loaded always has one;
 * undefined when the text has no frontmatter mapping.
 */
export function frontmatterObject(text: string): StructuredMap | undefined {
  const split = splitFrontmatter(text);
  if (isFrontmatterProblem(split)) return undefined;
  const options = { firstLine: split.yamlFirstLine };
  let yaml = parseYamlSafely(split.yaml, options);
  if (yaml.problems.some((p) => p.severity === "error")) {
    const retry = quoteColonValues(split.yaml);
    if (retry.quoted.length === 0) return undefined;
    yaml = parseYamlSafely(retry.yaml, options);
    if (yaml.problems.some((p) => p.severity === "error")) return undefined;
  }
  const value = yaml.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return toStructuredMap(value as Record<string, unknown>);
}
