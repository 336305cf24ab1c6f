import { ToolhostError } from "../../errors/toolhost-error.js";
import type { PatchChunk } from "./patch-types.js";

/**
 * applyChunks applies an Update File section's hunks to a file's text, as Codex does: each hunk's
 * "@@ anchor" line is found first (after the previous hunk), then its expected lines after that,
 * compared exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace
 * (models often get indentation slightly wrong); a hunk marked "*** End of File" must match at
 * the end. Line endings follow the file: CRLF files keep CRLF on new lines. A hunk that matches
 * nowhere is PATCH_FAILED naming the file, the hunk and its first line.
 */
export function applyChunks(path: string, text: string, chunks: readonly PatchChunk[]): string {
  const crlf = text.includes("\r\n");
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const hadFinalNewline = lines.at(-1) === "";
  if (hadFinalNewline) lines.pop();
  const replacements: { at: number; remove: number; insert: readonly string[] }[] = [];
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
      replacements.push({ at: lines.length, remove: 0, insert: chunk.newLines });
      return;
    }
    let expected = chunk.oldLines;
    let inserted = chunk.newLines;
    let at = seek(lines, expected, cursor, chunk.endOfFile, budget);
    if (at === undefined && expected.at(-1) === "") {
      // A trailing blank context line often stands for the file's final newline.
      expected = expected.slice(0, -1);
      inserted = inserted.at(-1) === "" ? inserted.slice(0, -1) : inserted;
      at = seek(lines, expected, cursor, chunk.endOfFile, budget);
    }
    if (at === undefined) throw failed(path, n, `its lines starting "${(chunk.oldLines[0] ?? "").slice(0, 60)}" are not in the file${cursor > 0 ? " after the previous hunk" : ""}`);
    replacements.push({ at, remove: expected.length, insert: inserted });
    cursor = at + expected.length;
  });
  // One pass in file order (hunks never overlap: each starts after the previous one's end), not a
  // splice per hunk: splice(...insert) overflowed the stack for a hunk of 300,000 added lines, and
  // each splice moved the whole rest of the file. Equal positions keep their order in the patch.
  const out: string[] = [];
  let pos = 0;
  for (const r of [...replacements].sort((a, b) => a.at - b.at)) {
    for (; pos < r.at; pos++) out.push(lines[pos]!);
    for (const line of r.insert) out.push(line);
    pos = r.at + r.remove;
  }
  for (; pos < lines.length; pos++) out.push(lines[pos]!);
  const eol = crlf ? "\r\n" : "\n";
  return out.length === 0 ? "" : out.join(eol) + eol;
}

const comparisons: readonly ((s: string) => string)[] = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];

/**
 * seekBudget caps the line comparisons one file's hunk search may make. Each start is compared
 * against the whole hunk, so a long hunk that nearly matches everywhere (a file of equal lines)
 * costs lines × hunk lines × 3: a 20,000-line hunk over 60,000 lines held the event loop ~40 s.
 * Real patches (hunks of a few dozen lines, found in one pass) stay far below it.
 */
export const seekBudget = 20_000_000;

type Budget = { left: number; readonly path: string; readonly chunk: number };

function seek(lines: readonly string[], pattern: readonly string[], from: number, atEnd: boolean, budget: Budget): number | undefined {
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
        throw failed(budget.path, budget.chunk, `finding its ${pattern.length} lines would take too long (they nearly match in too many places); give the hunk fewer context lines, or an "@@" anchor line near the change`);
      }
    }
  }
  return undefined;
}

function failed(path: string, chunk: number, what: string): ToolhostError {
  return new ToolhostError("PATCH_FAILED", `Hunk ${chunk + 1} of "${path}" does not apply: ${what}. Read the file again and rewrite the hunk; nothing was changed.`, { path, hunk: String(chunk + 1) });
}
