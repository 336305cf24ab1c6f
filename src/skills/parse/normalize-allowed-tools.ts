import type { SkillProblem } from "../skill-types.js";

/**
 * normalizeAllowedTools turns the frontmatter `allowed-tools` into a list of tool names.
 *
 * Real skills write it three ways: a YAML list (153 of 11,344 surveyed), a comma-separated string
 * (~3,700, Claude Code's form) or a space-separated string (190, the Agent Skills specification's
 * form). A string with a comma is split on commas, otherwise on whitespace; separators inside
 * parentheses do not split, so "Bash(git log:*)" stays one entry.
 */
export function normalizeAllowedTools(value: unknown, line: number): { tools: string[]; problems: SkillProblem[] } {
  const problems: SkillProblem[] = [];
  if (value === null || value === undefined) {
    return { tools: [], problems };
  }
  if (typeof value === "string") {
    return { tools: splitToolList(value), problems };
  }
  if (Array.isArray(value)) {
    const tools: string[] = [];
    value.forEach((item, i) => {
      if (typeof item === "string" || typeof item === "number" || typeof item === "boolean") {
        const tool = String(item).trim();
        if (tool !== "") {
          tools.push(tool);
        }
        return;
      }
      problems.push({
        severity: "warning",
        field: "allowed-tools",
        message: `allowed-tools entry ${i + 1} is not a tool name and was ignored: list tool names as text (quote an entry that contains ": ").`,
        line,
      });
    });
    return { tools, problems };
  }
  problems.push({
    severity: "warning",
    field: "allowed-tools",
    message: "allowed-tools must be a list of tool names or a comma- or space-separated string; it was ignored.",
    line,
  });
  return { tools: [], problems };
}

function splitToolList(text: string): string[] {
  const separator = hasTopLevel(text, ",") ? "," : " ";
  const tools: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth += 1;
    if (ch === ")") depth = Math.max(0, depth - 1);
    const splits = depth === 0 && (separator === "," ? ch === "," : /\s/.test(ch));
    if (splits) {
      tools.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  tools.push(current);
  return tools.map((t) => t.trim()).filter((t) => t !== "");
}

function hasTopLevel(text: string, needle: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === "(") depth += 1;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && ch === needle) return true;
  }
  return false;
}
