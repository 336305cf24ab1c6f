import { ToolhostError } from "../../errors/toolhost-error.js";
import { splitEndedLines, withEndings, type LineOrigin } from "../edit/line-endings.js";
import type { PatchChunk } from "./patch-types.js";

/**
 * applyChunks applies an Update File section's hunks to a file's text, as Codex does: each hunk's
 * "@@ anchor" line is found first (after the previous hunk), then its expected lines after that,
 * by Codex's ladder (see comparisons); a hunk marked "*** End of File" must match at the end.
 * Every line keeps its own ending (a file may mix LF and CRLF); a new line takes the ending of
 * the line it replaces or of its neighbour; the result always ends with a newline, as Codex's
 * does. A hunk that matches nowhere is PATCH_FAILED naming the file, the hunk and its first line.
 */
export function applyChunks(path: string, text: string, chunks: readonly PatchChunk[]): string {
  const source = splitEndedLines(text);
  const lines = source.map((l) => l.text);
  const replacements: { at: number; remove: number; insert: readonly string[]; origins: readonly LineOrigin[] }[] = [];
  let cursor = 0;
  const budget = { left: seekBudget, path, chunk: 0 };
  chunks.forEach((chunk, n) => {
    budget.chunk = n;
    if (chunk.anchor !== undefined) {
      const found = seek(lines, [chunk.anchor], cursor, false, budget);
      if (found === undefined) throw failed(path, n, `its "@@ ${chunk.anchor.slice(0, 60)}" line is not in the file`);
      cursor = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A pure addition goes at the end of the file (or the anchor's place is only a hint).
      replacements.push({ at: lines.length, remove: 0, insert: chunk.newLines, origins: chunk.newOrigins });
      return;
    }
    let expected = chunk.oldLines;
    let inserted = chunk.newLines;
    let origins = chunk.newOrigins;
    let at = seek(lines, expected, cursor, chunk.endOfFile, budget);
    if (at === undefined && expected.at(-1) === "") {
      // A trailing blank context line often stands for the file's final newline.
      expected = expected.slice(0, -1);
      if (inserted.at(-1) === "") {
        inserted = inserted.slice(0, -1);
        origins = origins.slice(0, -1);
      }
      at = seek(lines, expected, cursor, chunk.endOfFile, budget);
    }
    if (at === undefined)
      throw failed(
        path,
        n,
        `its lines starting "${(chunk.oldLines[0] ?? "").slice(0, 60)}" are not in the file${cursor > 0 ? " after the previous hunk" : ""}`,
      );
    replacements.push({ at, remove: expected.length, insert: inserted, origins });
    cursor = at + expected.length;
  });
  // One pass in file order (hunks never overlap: each starts after the previous one's end), not a
  // splice per hunk: splice(...insert) overflowed the stack for a hunk of 300,000 added lines, and
  // each splice moved the whole rest of the file. Equal positions keep their order in the patch.
  const out: string[] = [];
  const outOrigins: LineOrigin[] = [];
  let pos = 0;
  const keep = (upTo: number) => {
    for (; pos < upTo; pos++) {
      out.push(lines[pos]!);
      outOrigins.push({ kind: "kept", old: pos });
    }
  };
  for (const r of [...replacements].sort((a, b) => a.at - b.at)) {
    keep(r.at);
    for (let k = 0; k < r.insert.length; k++) {
      out.push(r.insert[k]!);
      const origin = r.origins[k] ?? { kind: "added" };
      outOrigins.push(origin.kind === "added" ? origin : { kind: origin.kind, old: r.at + origin.old });
    }
    pos = r.at + r.remove;
  }
  keep(lines.length);
  return withEndings(out, outOrigins, source, true);
}

/**
 * comparisons are Codex's seek_sequence ladder, tried in order over the whole file: exact, then
 * ignoring trailing whitespace, then surrounding whitespace, then with typographic punctuation
 * folded to ASCII (models write "-" and '"' where the file has en dashes and curly quotes).
 */
const comparisons: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  (s) => foldPunctuation(s.trim()),
];

/**
 * punctuationFold is the set Codex's seek_sequence normalises, exactly: the dashes U+2010–U+2015
 * and U+2212 to "-", the quotes U+2018–U+201B to "'" and U+201C–U+201F to '"', and U+00A0,
 * U+2002–U+200A, U+202F, U+205F and U+3000 to a space.
 */
const punctuationFold = /[\u2010-\u2015\u2212\u2018-\u201b\u201c-\u201f\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;

function foldPunctuation(s: string): string {
  return s.replace(punctuationFold, (c) => {
    const code = c.charCodeAt(0);
    if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return "-";
    if (code >= 0x2018 && code <= 0x201b) return "'";
    if (code >= 0x201c && code <= 0x201f) return '"';
    return " ";
  });
}

/**
 * seekBudget caps the line comparisons one file's hunk search may make. Each start is compared
 * against the whole hunk, so a long hunk that nearly matches everywhere (a file of equal lines)
 * costs lines × hunk lines × 3: a 20,000-line hunk over 60,000 lines held the event loop ~40 s.
 * Real patches (hunks of a few dozen lines, found in one pass) stay far below it.
 */
export const seekBudget = 20_000_000;

type Budget = { left: number; readonly path: string; readonly chunk: number };

function seek(
  lines: readonly string[],
  pattern: readonly string[],
  from: number,
  atEnd: boolean,
  budget: Budget,
): number | undefined {
  if (pattern.length > lines.length) return undefined;
  const first = atEnd ? lines.length - pattern.length : from;
  const last = lines.length - pattern.length;
  for (const norm of comparisons) {
    const wanted = pattern.map(norm);
    for (let start = Math.max(0, first); start <= last; start++) {
      let k = 0;
      while (k < wanted.length && norm(lines[start + k]!) === wanted[k]) k++;
      budget.left -= k + 1;
      if (k === wanted.length) return start;
      if (budget.left < 0) {
        throw failed(
          budget.path,
          budget.chunk,
          `finding its ${pattern.length} lines would take too long (they nearly match in too many places); give the hunk fewer context lines, or an "@@" anchor line near the change`,
        );
      }
    }
  }
  return undefined;
}

function failed(path: string, chunk: number, what: string): ToolhostError {
  return new ToolhostError(
    "PATCH_FAILED",
    `Hunk ${chunk + 1} of "${path}" does not apply: ${what}. Read the file again and rewrite the hunk; nothing was changed.`,
    { path, hunk: String(chunk + 1) },
  );
}
