import { ToolhostError } from "../../errors/toolhost-error.js";
import type { PatchChunk, PatchOperation } from "./patch-types.js";

/** PatchBounds caps what one patch may ask for. */
export interface PatchBounds {
  readonly maxFiles: number;
  readonly maxChunksPerFile: number;
}

/**
 * maxPatchPathBytes bounds each path a patch names (Linux's PATH_MAX). The reply echoes every
 * path; unbounded, two "././…" paths of 2 MB each were committed and then the reply failed over
 * the send limit, so the client saw an error for a patch that was applied.
 */
export const maxPatchPathBytes = 4096;

const begin = "*** Begin Patch";
const end = "*** End Patch";
const add = "*** Add File: ";
const del = "*** Delete File: ";
const update = "*** Update File: ";
const moveTo = "*** Move to: ";
const endOfFile = "*** End of File";

/**
 * parseCodexPatch reads a patch in the format Codex's apply_patch tool takes (and models are
 * trained to write): "*** Begin Patch", then file sections — "*** Add File: p" with "+" lines,
 * "*** Delete File: p", "*** Update File: p" with an optional "*** Move to: q" and "@@" hunks of
 * " ", "-" and "+" lines, "*** End of File" pinning a hunk to the end — then "*** End Patch".
 *
 * Hand-written: the format has no maintained JavaScript parser (Codex's own is Rust). As Codex
 * does, the first hunk of a section may omit its "@@" line, and surrounding whitespace of the
 * whole text is ignored. Every refusal is PATCH_INVALID naming the line.
 */
export function parseCodexPatch(text: string, bounds: PatchBounds): PatchOperation[] {
  const lines = text.trim().split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines[0]?.trim() !== begin) throw invalid(1, `the first line must be "${begin}"`);
  if (lines.at(-1)?.trim() !== end) throw invalid(lines.length, `the last line must be "${end}"`);
  const ops: PatchOperation[] = [];
  let i = 1;
  while (i < lines.length - 1) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (ops.length >= bounds.maxFiles) throw invalid(lineNo, `the patch changes more than ${bounds.maxFiles} files; split it into several patches`);
    if (line.startsWith(add)) {
      const path = pathOf(line, add, lineNo);
      const content: string[] = [];
      i++;
      while (i < lines.length - 1 && lines[i]!.startsWith("+")) content.push(lines[i++]!.slice(1));
      ops.push({ kind: "add", path, content: content.length === 0 ? "" : content.join("\n") + "\n", line: lineNo });
    } else if (line.startsWith(del)) {
      ops.push({ kind: "delete", path: pathOf(line, del, lineNo), line: lineNo });
      i++;
    } else if (line.startsWith(update)) {
      const path = pathOf(line, update, lineNo);
      i++;
      let target: string | undefined;
      if (lines[i]?.startsWith(moveTo)) target = pathOf(lines[i++]!, moveTo, i);
      const parsed = parseChunks(lines, i, bounds.maxChunksPerFile);
      if (parsed.chunks.length === 0 && target === undefined) throw invalid(lineNo, `"${path}" has an Update File section with no hunks`);
      ops.push({ kind: "update", path, moveTo: target, chunks: parsed.chunks, line: lineNo });
      i = parsed.next;
    } else if (line.trim() === "") {
      i++;
    } else {
      throw invalid(lineNo, `expected "${add}", "${del}" or "${update}" but found "${line.slice(0, 80)}"`);
    }
  }
  if (ops.length === 0) throw invalid(1, "the patch names no file");
  const seen = new Set<string>();
  for (const op of ops) {
    for (const p of op.kind === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path]) {
      if (seen.has(p)) throw invalid(op.line, `"${p}" appears twice in the patch; change each file in one section`);
      seen.add(p);
    }
  }
  return ops;
}

function parseChunks(lines: readonly string[], start: number, maxChunks: number): { chunks: PatchChunk[]; next: number } {
  const chunks: PatchChunk[] = [];
  let i = start;
  while (i < lines.length - 1 && !lines[i]!.startsWith("*** ") ) {
    const header = lines[i]!;
    let anchor: string | undefined;
    if (header === "@@" || header.startsWith("@@ ")) {
      anchor = header.length > 3 ? header.slice(3) : undefined;
      i++;
    } else if (chunks.length > 0) {
      throw invalid(i + 1, `expected a "@@" line to start the next hunk, found "${header.slice(0, 80)}"`);
    }
    const oldLines: string[] = [];
    const newLines: string[] = [];
    let eof = false;
    while (i < lines.length - 1) {
      const line = lines[i]!;
      if (line === endOfFile) {
        eof = true;
        i++;
        break;
      }
      if (line === "@@" || line.startsWith("@@ ") || line.startsWith("*** ")) break;
      const mark = line[0];
      const body = line.slice(1);
      if (mark === " " || line === "") {
        oldLines.push(body);
        newLines.push(body);
      } else if (mark === "-") {
        oldLines.push(body);
      } else if (mark === "+") {
        newLines.push(body);
      } else {
        throw invalid(i + 1, `a hunk line must start with " ", "-" or "+", found "${line.slice(0, 80)}"`);
      }
      i++;
    }
    if (oldLines.length === 0 && newLines.length === 0) throw invalid(i, "a hunk has no lines");
    chunks.push({ anchor, oldLines, newLines, endOfFile: eof });
    if (chunks.length > maxChunks) throw invalid(i, `a file has more than ${maxChunks} hunks; split the patch`);
  }
  return { chunks, next: i };
}

function pathOf(line: string, prefix: string, lineNo: number): string {
  const path = line.slice(prefix.length).trim();
  if (path === "") throw invalid(lineNo, `"${prefix.trim()}" names no path`);
  const bytes = Buffer.byteLength(path);
  if (bytes > maxPatchPathBytes) {
    throw invalid(lineNo, `the path "${path.slice(0, 60)}…" is ${bytes} bytes, over the ${maxPatchPathBytes}-byte limit (PATH_MAX)`);
  }
  return path;
}

function invalid(line: number, what: string): ToolhostError {
  return new ToolhostError("PATCH_INVALID", `The patch is not in the "*** Begin Patch" format: line ${line}: ${what}.`, { line: String(line) });
}
