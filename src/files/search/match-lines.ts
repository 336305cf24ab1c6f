import { fsAt } from "../../sandbox/native/fs-at.js";
import { countNewlines } from "../read/count-newlines.js";
import { matchContent } from "./match-content.js";
import type { ContentMatches, MatchedLine, MatchSpec } from "./match-spec.js";

const newline = 0x0a;

/**
 * matchLines gives matchContent's answer for a pattern whose every match lies within one line
 * and holds `needle`'s bytes (MatchSpec.lineBound: a literal without a line break), decoding only
 * the lines that hold `needle`: the lines between are counted on the bytes, never decoded. A
 * literal found a few times in a 9 MB file then costs a byte search, not a decode of 9 MB into a
 * string (decoding was most of a literal search's time).
 *
 * Each candidate line is matched by matchContent itself, so columns, ranges, cut lines, CRs and
 * whole-word edges are the same: a line's text decoded alone equals its slice of the whole
 * decoded text, since an LF byte is never part of a UTF-8 sequence. Without context lines only
 * (the caller checks): `skip`, `cap` and `more` as in matchContent.
 */
export function matchLines(
  content: Buffer,
  needle: Buffer,
  regex: RegExp,
  spec: MatchSpec,
  skip: number,
  cap: number,
): ContentMatches {
  const lineSpec: MatchSpec = spec.mode === "content" ? spec : { ...spec, mode: "content" };
  const lines: MatchedLine[] = [];
  let count = 0; // matching lines seen, the skipped ones included
  for (const [start, end, lineNumber] of candidateLines(content, needle)) {
    const found = matchContent(content.toString("utf8", start, end), regex, lineSpec, 0, 1);
    if (found.count > 0) {
      if (spec.mode === "files") return { lines, count: 1, more: false };
      if (count - skip >= cap) return { lines, count: count - skip, more: true };
      if (count >= skip && spec.mode === "content") lines.push({ ...found.lines[0]!, lineNumber });
      count++;
    }
  }
  return { lines, count: Math.max(0, count - skip), more: false };
}

/** linesPerCall is how many candidate lines one native findLines call returns at most. */
const linesPerCall = 64;

/**
 * candidateLines yields the lines of `content` that hold `needle`, in order: their start, their
 * end (the offset of their LF, or the content's length) and their line number. With the native
 * addon, findLines finds them (memmem and a vectorized newline count); else Buffer.indexOf and
 * countNewlines.
 */
function* candidateLines(content: Buffer, needle: Buffer): Generator<[start: number, end: number, lineNumber: number]> {
  if (fsAt !== undefined) {
    const out = new Float64Array(3 * linesPerCall);
    let from = 0;
    let lineNumber = 1;
    for (;;) {
      const found = fsAt.findLines(content, from, needle, lineNumber, out);
      for (let i = 0; i < found; i++) yield [out[3 * i]!, out[3 * i + 1]!, out[3 * i + 2]!];
      if (found < linesPerCall) return;
      const end = out[3 * found - 2]!;
      if (end >= content.length) return;
      from = end + 1;
      lineNumber = out[3 * found - 1]! + 1;
    }
  }
  let lineNumber = 1;
  let counted = 0; // byte offset up to which newlines were counted into lineNumber
  for (let at = content.indexOf(needle); at !== -1; ) {
    const start = at === 0 ? 0 : content.lastIndexOf(newline, at - 1) + 1;
    const end = content.indexOf(newline, at);
    lineNumber += countNewlines(content.subarray(counted, start));
    counted = start;
    yield [start, end === -1 ? content.length : end, lineNumber];
    if (end === -1) break;
    at = content.indexOf(needle, end + 1);
  }
}
