import { isSeq, type Node } from "yaml";
import type { SkillProblem, SkillStepData } from "../skill-types.js";

/**
 * parseSteps turns the frontmatter `steps` list into SkillStep data with stable 1-based indexes.
 * Anything but a list of non-empty text entries is an error naming "steps", with the entry's
 * line, because a silently skipped step would reorder the workflow an agent follows.
 */
export function parseSteps(
  value: unknown,
  node: Node | null,
  line: number,
  lineAt: (offset: number) => number,
): { steps: SkillStepData[]; problems: SkillProblem[] } {
  const problems: SkillProblem[] = [];
  if (!Array.isArray(value)) {
    const found =
      value === null || value === undefined
        ? "nothing"
        : typeof value === "object"
          ? "a mapping"
          : `the text "${String(value)}"`;
    problems.push({
      severity: "error",
      field: "steps",
      message: `steps must be a YAML list of step texts (one "- ..." line per step), found ${found}.`,
      line,
    });
    return { steps: [], problems };
  }
  const items = isSeq(node) ? node.items : [];
  const steps: SkillStepData[] = [];
  value.forEach((item, i) => {
    const itemNode = items[i] as Node | null | undefined;
    const itemLine = itemNode?.range ? lineAt(itemNode.range[0]) : line;
    const entry = `steps entry ${i + 1} (line ${itemLine})`;
    if (typeof item === "string" && item.trim() !== "") {
      steps.push({ index: i + 1, content: item.trim() });
      return;
    }
    if (item === null || item === undefined || (typeof item === "string" && item.trim() === "")) {
      problems.push({
        severity: "error",
        field: "steps",
        message: `${entry} is empty: write the step's text after the "-" or remove the line.`,
        line: itemLine,
      });
    } else if (typeof item === "object" && !Array.isArray(item)) {
      problems.push({
        severity: "error",
        field: "steps",
        message: `${entry} is a mapping, not text: a step that contains ": " must be quoted, e.g. - "Run: npm test".`,
        line: itemLine,
      });
    } else if (Array.isArray(item)) {
      problems.push({
        severity: "error",
        field: "steps",
        message: `${entry} is a nested list: each step must be one text entry.`,
        line: itemLine,
      });
    } else {
      problems.push({
        severity: "error",
        field: "steps",
        message: `${entry} is ${typeof item} ${String(item)}, not text: quote it to make it a step.`,
        line: itemLine,
      });
    }
  });
  return { steps, problems };
}
