import type { SkillProblem } from "../skill-types.js";

/** FrontmatterSplit is SKILL.md text cut into its YAML frontmatter and its body. */
export interface FrontmatterSplit {
  /** The YAML between the delimiter lines, line endings as in the file. */
  readonly yaml: string;
  /** The 1-based file line of the YAML's first line, to turn YAML line numbers into file lines. */
  readonly yamlFirstLine: number;
  /** The 1-based file line of the closing `---`. */
  readonly closingLine: number;
  /** Everything after the closing delimiter line, exactly. */
  readonly body: string;
  /** Whether the text started with a UTF-8 byte order mark (which is not part of the YAML). */
  readonly bom: boolean;
}

const delimiter = "---";

/**
 * maxFrontmatterLineLength is the longest frontmatter line accepted, in characters: far above a
 * real one (a description is at most 1024 characters by the Agent Skills specification), and low
 * enough that no per-line work on an untrusted line can be slow.
 */
export const maxFrontmatterLineLength = 8192;

/**
 * splitFrontmatter finds the frontmatter of SKILL.md text: a first line `---` and the next line
 * that is exactly `---`, found line by line.
 *
 * Splitting on the string "---" (as some loaders do) cuts a quoted value such as "a --- b" or a
 * body with a horizontal rule; only whole lines count here. A UTF-8 BOM and CRLF line endings are
 * tolerated because Windows editors produce them. A frontmatter line over
 * maxFrontmatterLineLength is a problem naming that line.
 */
export function splitFrontmatter(text: string): FrontmatterSplit | SkillProblem {
  const bom = text.startsWith("\uFEFF");
  const content = bom ? text.slice(1) : text;
  if (content.trim() === "") {
    return frontmatterProblem(
      "SKILL.md is empty: it must start with a '---' line, then the YAML frontmatter with at least `name` and `description`, then a closing '---' line and the instructions.",
      1,
    );
  }
  const first = nextLine(content, 0);
  if (first.line !== delimiter) {
    return frontmatterProblem(missingFrontmatterMessage(content, first.line), 1);
  }
  let pos = first.next;
  let lineNumber = 2;
  while (pos < content.length) {
    const current = nextLine(content, pos);
    if (current.line.length > maxFrontmatterLineLength) {
      return frontmatterProblem(
        `frontmatter line ${lineNumber} is ${current.line.length} characters long, over the limit of ${maxFrontmatterLineLength}: keep each field on a reasonably short line and move long text into the body or references/.`,
        lineNumber,
      );
    }
    if (current.line === delimiter) {
      const yaml = content.slice(first.next, pos);
      if (yaml.trim() === "") {
        return frontmatterProblem(
          "the frontmatter block is empty: put at least `name: namespace/short-name` and `description: ...` between the two '---' lines.",
          1,
        );
      }
      return { yaml, yamlFirstLine: 2, closingLine: lineNumber, body: content.slice(current.next), bom };
    }
    pos = current.next;
    lineNumber += 1;
  }
  return frontmatterProblem(
    `the frontmatter opened by '---' on line 1 is never closed: add a line that is exactly '---' after the last frontmatter field (the file has ${lineNumber - 1} lines).`,
    1,
  );
}

/** isProblem tells a splitFrontmatter failure from a split. */
export function isFrontmatterProblem(value: FrontmatterSplit | SkillProblem): value is SkillProblem {
  return "severity" in value;
}

function nextLine(text: string, start: number): { line: string; next: number } {
  const end = text.indexOf("\n", start);
  const stop = end === -1 ? text.length : end;
  const raw = text.slice(start, stop);
  return { line: raw.endsWith("\r") ? raw.slice(0, -1) : raw, next: end === -1 ? text.length : end + 1 };
}

function frontmatterProblem(message: string, line: number): SkillProblem {
  return { severity: "error", field: "frontmatter", message, line };
}

function missingFrontmatterMessage(content: string, firstLine: string): string {
  const shown = firstLine.length > 60 ? `${firstLine.slice(0, 57)}...` : firstLine;
  let message = `SKILL.md has no YAML frontmatter: line 1 must be '---', found "${shown}". Start the file with '---', then \`name\` and \`description\` lines, then '---'.`;
  // A symlinked SKILL.md checked out without symlink support becomes a one-line file holding the
  // link target; saying so saves the author a puzzled look at a "skill" that is only a path.
  if (content.trim() === firstLine.trim() && looksLikeLinkTarget(firstLine.trim())) {
    message +=
      " The file holds only a path: it looks like a symlink stored as text (git core.symlinks=false); restore the link or copy the target file.";
  }
  return message;
}

/**
 * looksLikeLinkTarget tells a path ending in SKILL.md (no blanks, a "/" before the file name), in
 * one pass: the former /^[^\s]*\/[^\s]*SKILL\.md$/i backtracked for minutes on a long line of "/".
 */
function looksLikeLinkTarget(line: string): boolean {
  return line.length > 8 && /^skill\.md$/i.test(line.slice(-8)) && line.slice(0, -8).includes("/") && !/\s/.test(line);
}
