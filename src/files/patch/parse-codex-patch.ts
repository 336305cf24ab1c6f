import { isAbsolute, posix } from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { LineOrigin } from "../edit/line-endings.js";
import type { PatchChunk, PatchOperation } from "./patch-types.js";
import { unwrapHeredoc } from "./unwrap-heredoc.js";

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
 * Hand-written: the format has no maintained JavaScript parser (Codex's own is Rust). It is as
 * lenient as Codex's (codex-rs/apply-patch/src/parser.rs): surrounding whitespace of the whole
 * text and of the Begin, End and section marker lines is ignored, a shell heredoc around the
 * patch is taken off (unwrapHeredoc), the first hunk of a section may omit its "@@" line, and
 * blank lines between hunks (after "*** End of File") and between sections are skipped. Every
 * refusal is PATCH_INVALID naming the line.
 */
export function parseCodexPatch(text: string, bounds: PatchBounds): PatchOperation[] {
  const all = text
    .trim()
    .split("\n")
    .map((l) => l.replace(/\r$/, ""));
  const strict = all[0]?.trim() === begin && all.at(-1)?.trim() === end;
  const unwrapped = strict ? { lines: all, workdir: undefined, offset: 0 } : unwrapHeredoc(all);
  const lines = unwrapped.lines;
  const lineNo = (i: number) => i + 1 + unwrapped.offset;
  if (lines[0]?.trim() !== begin) throw invalid(lineNo(0), `the first line must be "${begin}"`);
  if (lines.length < 2 || lines.at(-1)?.trim() !== end)
    throw invalid(lineNo(lines.length - 1), `the last line must be "${end}"`);
  const inWorkdir = (path: string) =>
    unwrapped.workdir === undefined || isAbsolute(path) ? path : posix.join(unwrapped.workdir, path);
  const ops: PatchOperation[] = [];
  let i = 1;
  while (i < lines.length - 1) {
    const line = lines[i]!.trimStart();
    const at = lineNo(i);
    if (line.trim() === "") {
      i++;
      continue;
    }
    if (ops.length >= bounds.maxFiles)
      throw invalid(at, `the patch changes more than ${bounds.maxFiles} files; split it into several patches`);
    if (line.startsWith(add)) {
      const path = inWorkdir(pathOf(line, add, at));
      const content: string[] = [];
      i++;
      while (i < lines.length - 1 && lines[i]!.startsWith("+")) content.push(lines[i++]!.slice(1));
      ops.push({ kind: "add", path, content: content.length === 0 ? "" : content.join("\n") + "\n", line: at });
    } else if (line.startsWith(del)) {
      ops.push({ kind: "delete", path: inWorkdir(pathOf(line, del, at)), line: at });
      i++;
    } else if (line.startsWith(update)) {
      const path = inWorkdir(pathOf(line, update, at));
      i++;
      let target: string | undefined;
      if (lines[i]?.trimEnd().startsWith(moveTo)) {
        target = inWorkdir(pathOf(lines[i]!.trimEnd(), moveTo, lineNo(i)));
        i++;
      }
      const parsed = parseChunks(lines, i, bounds.maxChunksPerFile, lineNo);
      if (parsed.chunks.length === 0 && target === undefined)
        throw invalid(at, `"${path}" has an Update File section with no hunks`);
      ops.push({ kind: "update", path, moveTo: target, chunks: parsed.chunks, line: at });
      i = parsed.next;
    } else {
      throw invalid(at, `expected "${add}", "${del}" or "${update}" but found "${line.slice(0, 80)}"`);
    }
  }
  if (ops.length === 0) throw invalid(lineNo(0), "the patch names no file");
  const seen = new Set<string>();
  for (const op of ops) {
    for (const p of op.kind === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path]) {
      if (seen.has(p)) throw invalid(op.line, `"${p}" appears twice in the patch; change each file in one section`);
      seen.add(p);
    }
  }
  return ops;
}

/**
 * parseChunks reads an Update File section's hunks, as Codex's parse_update_file_chunk does: a
 * blank or space-prefixed line is context, "-" removed, "+" added; a "*** " line ends the
 * section. Blank lines where a hunk would start are skipped.
 */
function parseChunks(
  lines: readonly string[],
  start: number,
  maxChunks: number,
  lineNo: (i: number) => number,
): { chunks: PatchChunk[]; next: number } {
  const chunks: PatchChunk[] = [];
  let i = start;
  while (i < lines.length - 1 && !lines[i]!.startsWith("*** ")) {
    const header = lines[i]!;
    if (header.trim() === "") {
      i++;
      continue;
    }
    let anchor: string | undefined;
    if (header === "@@" || header.startsWith("@@ ")) {
      anchor = header.length > 3 ? header.slice(3) : undefined;
      i++;
    } else if (chunks.length > 0) {
      throw invalid(lineNo(i), `expected a "@@" line to start the next hunk, found "${header.slice(0, 80)}"`);
    }
    const oldLines: string[] = [];
    const newLines: string[] = [];
    const newOrigins: LineOrigin[] = [];
    let unreplaced: number[] = [];
    let eof = false;
    while (i < lines.length - 1) {
      const line = lines[i]!;
      if (line.trimEnd() === endOfFile) {
        eof = true;
        i++;
        break;
      }
      if (line === "@@" || line.startsWith("@@ ") || line.startsWith("*** ")) break;
      const mark = line[0];
      const body = line.slice(1);
      if (mark === " " || line === "") {
        newOrigins.push({ kind: "kept", old: oldLines.length });
        oldLines.push(body);
        newLines.push(body);
        unreplaced = [];
      } else if (mark === "-") {
        unreplaced.push(oldLines.length);
        oldLines.push(body);
      } else if (mark === "+") {
        const replaced = unreplaced.shift();
        newOrigins.push(replaced === undefined ? { kind: "added" } : { kind: "replaces", old: replaced });
        newLines.push(body);
      } else {
        throw invalid(lineNo(i), `a hunk line must start with " ", "-" or "+", found "${line.slice(0, 80)}"`);
      }
      i++;
    }
    if (oldLines.length === 0 && newLines.length === 0) throw invalid(lineNo(i - 1), "a hunk has no lines");
    chunks.push({ anchor, oldLines, newLines, newOrigins, endOfFile: eof });
    if (chunks.length > maxChunks)
      throw invalid(lineNo(i - 1), `a file has more than ${maxChunks} hunks; split the patch`);
  }
  return { chunks, next: i };
}

function pathOf(line: string, prefix: string, lineNo: number): string {
  const path = line.slice(prefix.length).trim();
  if (path === "") throw invalid(lineNo, `"${prefix.trim()}" names no path`);
  const bytes = Buffer.byteLength(path);
  if (bytes > maxPatchPathBytes) {
    throw invalid(
      lineNo,
      `the path "${path.slice(0, 60)}…" is ${bytes} bytes, over the ${maxPatchPathBytes}-byte limit (PATH_MAX)`,
    );
  }
  return path;
}

function invalid(line: number, what: string): ToolhostError {
  return new ToolhostError(
    "PATCH_INVALID",
    `The patch is not in the "*** Begin Patch" format: line ${line}: ${what}.`,
    { line: String(line) },
  );
}
