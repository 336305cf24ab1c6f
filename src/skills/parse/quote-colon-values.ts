/** QuotedValue is one frontmatter line whose value quoteColonValues put in quotes. */
export interface QuotedValue {
  readonly key: string;
  /** 0-based line within the YAML text. */
  readonly yamlLine: number;
  /** The line as it should be written. */
  readonly fixed: string;
}

// Linear: no lazy group before a trailing-blank run (that pair backtracks quadratically on a
// line of spaces); the value is trimmed in code instead, and "s" lets "." take any character.
const keyValueLine = /^( *)([A-Za-z0-9_][A-Za-z0-9_.-]*):[ \t]+(.*)$/s;
// A value starting with one of these is not a plain scalar (quoted, block, flow, anchor, alias,
// tag, comment or reserved), so quoting it would change its meaning.
const notPlain = /^["'|>[{&*!#%@`]/;

/**
 * quoteColonValues rewrites `key: value` lines whose plain one-line value contains ": " (which
 * YAML refuses: "Nested mappings are not allowed in compact mappings") into `key: "value"`.
 *
 * 27 of the 28 real SKILL.md files that fail YAML parsing fail only this way, mostly in
 * descriptions such as "Use when: ...", and the Agent Skills client guide suggests exactly this
 * quote-and-retry fallback. Lines inside block scalars and continuation lines of multi-line
 * values are left alone: quoting them would change the text.
 */
export function quoteColonValues(yaml: string): { yaml: string; quoted: QuotedValue[] } {
  const lines = yaml.split("\n");
  const quoted: QuotedValue[] = [];
  // While >= 0, lines indented deeper than this belong to the previous key's value.
  let continuationIndent = -1;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    const cr = raw.endsWith("\r") ? "\r" : "";
    const line = cr ? raw.slice(0, -1) : raw;
    const indent = line.length - line.trimStart().length;
    if (line.trim() === "" || line.trimStart().startsWith("#")) {
      continue;
    }
    if (continuationIndent >= 0 && indent > continuationIndent) {
      continue;
    }
    continuationIndent = -1;
    const match = keyValueLine.exec(line);
    if (match === null) {
      continue;
    }
    const [, spaces = "", key = "", untrimmed = ""] = match;
    const rest = trimBlanksEnd(untrimmed);
    if (rest !== "") {
      continuationIndent = indent;
    }
    const value = stripComment(rest);
    if (value === "" || notPlain.test(value) || !/: |:$/.test(value) || nextIsContinuation(lines, i, indent)) {
      continue;
    }
    const fixed = `${spaces}${key}: ${JSON.stringify(value)}`;
    lines[i] = fixed + cr;
    quoted.push({ key, yamlLine: i, fixed });
  }
  return { yaml: lines.join("\n"), quoted };
}

/** trimBlanksEnd drops trailing spaces and tabs in one backward pass (a regex /[ \t]+$/ is quadratic). */
function trimBlanksEnd(value: string): string {
  let end = value.length;
  while (end > 0 && (value[end - 1] === " " || value[end - 1] === "\t")) end--;
  return value.slice(0, end);
}

function stripComment(value: string): string {
  // In a plain scalar " #" starts a comment; what follows was never part of the value.
  const at = value.indexOf(" #");
  return (at === -1 ? value : value.slice(0, at)).trimEnd();
}

function nextIsContinuation(lines: readonly string[], index: number, indent: number): boolean {
  for (let j = index + 1; j < lines.length; j++) {
    const next = (lines[j] ?? "").replace(/\r$/, "");
    if (next.trim() === "") {
      continue;
    }
    return next.length - next.trimStart().length > indent;
  }
  return false;
}
