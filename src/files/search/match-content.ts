import type { ContentMatches, LineText, MatchedLine, MatchSpec } from "./match-spec.js";

/**
 * matchContent finds the matching lines of one file's text: one pass of a global, multiline
 * RegExp over the whole text (far faster than a pass per line), each match then placed on its
 * line. A match that runs past its line's end is reported on the line it starts on.
 *
 * `skip` matching lines are passed over first (a later batch of the same file), and at most
 * `cap` lines are returned; `more` then tells that the text has further matches.
 */
export function matchContent(text: string, regex: RegExp, spec: MatchSpec, skip: number, cap: number): ContentMatches {
  const lines: MatchedLine[] = [];
  let count = 0;
  let lineNumber = 1;
  let counted = 0; // text offset up to which newlines were counted into lineNumber
  let current: { start: number; end: number; number: number; ranges: [number, number][] } | undefined;
  const flush = (): boolean => {
    if (current === undefined) return true;
    const seen = count++;
    if (seen >= skip && spec.mode === "content") {
      lines.push(describeLine(text, current, spec));
    }
    current = undefined;
    return count - skip < cap;
  };
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    const index = m.index;
    if (m[0].length === 0) regex.lastIndex = index + 1;
    if (current !== undefined && index <= current.end) {
      current.ranges.push([index - current.start, Math.min(index + m[0].length, current.end) - current.start]);
      continue;
    }
    if (!flush()) return { lines, count: count - skip, more: true };
    lineNumber += countNewlines(text, counted, index);
    counted = index;
    const start = text.lastIndexOf("\n", index - 1) + 1;
    const newline = text.indexOf("\n", index);
    const end = newline === -1 ? text.length : newline;
    if (index === text.length && index === start && index > 0) break; // the empty "line" after a final newline
    if (spec.mode === "files") return { lines, count: 1, more: false };
    current = { start, end, number: lineNumber, ranges: [[index - start, Math.min(index + m[0].length, end) - start]] };
  }
  flush();
  return { lines, count: Math.max(0, count - skip), more: false };
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function describeLine(
  text: string,
  line: { start: number; end: number; number: number; ranges: [number, number][] },
  spec: MatchSpec,
): MatchedLine {
  const own = cut(text, line.start, line.end, line.number, spec.maxLineLength);
  const before: LineText[] = [];
  let start = line.start;
  for (let i = 1; i <= spec.contextBefore && start > 0; i++) {
    const end = start - 1;
    start = text.lastIndexOf("\n", end - 1) + 1;
    before.unshift(cut(text, start, end, line.number - i, spec.maxLineLength));
  }
  const after: LineText[] = [];
  let end = line.end;
  for (let i = 1; i <= spec.contextAfter && end < text.length - 1; i++) {
    const s = end + 1;
    const newline = text.indexOf("\n", s);
    end = newline === -1 ? text.length : newline;
    after.push(cut(text, s, end, line.number + i, spec.maxLineLength));
  }
  return { ...own, column: line.ranges[0]![0] + 1, ranges: line.ranges, before, after };
}

/** cut returns text[start, end) without a trailing CR, cut to maxLength characters. */
function cut(text: string, start: number, end: number, lineNumber: number, maxLength: number): LineText {
  const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
  const truncated = stop - start > maxLength;
  return { lineNumber, text: text.slice(start, truncated ? start + maxLength : stop), truncated };
}
