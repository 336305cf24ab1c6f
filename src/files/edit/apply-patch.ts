import type { StructuredPatch, StructuredPatchHunk } from "diff";
import { jsdiff } from "./jsdiff.js";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { throwIfAborted } from "../read/abortable.js";
import { describeEdit, type EditPosition, type EditStep } from "./edit-types.js";

/**
 * applyUnifiedDiff applies a one-file unified diff to `text` with jsdiff, in process: no external
 * `patch` binary to be missing or to misbehave. Hunks must match exactly (no fuzz), since an edit
 * applied in the wrong place is worse than a refused one. A hunk that does not apply fails the
 * whole edit with PATCH_FAILED, quoting the hunk and the lines the file has there.
 */
export async function applyUnifiedDiff(
  text: string,
  unifiedDiff: string,
  at: EditPosition,
  signal?: AbortSignal,
): Promise<EditStep> {
  const patch = parseOneFilePatch(unifiedDiff, at);
  const patched = jsdiff().applyPatch(text, patch);
  if (patched !== false) {
    return { text: patched, replacements: 0 };
  }
  // jsdiff says only "does not apply"; the shortest prefix of the hunk list that does not apply
  // names the hunk. A binary search finds it in log2(hunks) applications, so a diff of thousands
  // of hunks costs a few passes over the file, not one per hunk.
  let good = 0;
  let bad = patch.hunks.length;
  let applied = text;
  while (bad - good > 1) {
    await yieldToLoop();
    throwIfAborted(signal);
    const mid = (good + bad) >> 1;
    const next = jsdiff().applyPatch(text, { ...patch, hunks: patch.hunks.slice(0, mid) });
    if (next === false) {
      bad = mid;
    } else {
      good = mid;
      applied = next;
    }
  }
  // Every prefix up to `good` applied; the hunk after it did not (jsdiff's ordering rule included).
  throw hunkFailed(patch.hunks, bad - 1, applied, at);
}

function parseOneFilePatch(unifiedDiff: string, at: EditPosition): StructuredPatch {
  let patches: StructuredPatch[];
  try {
    patches = jsdiff().parsePatch(unifiedDiff);
  } catch (err) {
    throw badDiff(at, `it is not a well-formed unified diff (${(err as Error).message})`);
  }
  const withHunks = patches.filter((p) => p.hunks.length > 0);
  if (withHunks.length === 0) {
    throw badDiff(at, 'it has no "@@" hunks');
  }
  if (withHunks.length > 1) {
    throw badDiff(at, `it changes ${withHunks.length} files; send one file's diff per EditFile call`);
  }
  return withHunks[0] as StructuredPatch;
}

function badDiff(at: EditPosition, why: string): ToolhostError {
  return new ToolhostError(
    "INVALID_ARGUMENT",
    `unified_diff of ${describeEdit(at)} on '${at.clientPath}' cannot be used: ${why}; nothing was changed.`,
    { path: at.clientPath, field: "unified_diff", edit: String(at.index) },
  );
}

function hunkFailed(hunks: StructuredPatchHunk[], k: number, textBefore: string, at: EditPosition): ToolhostError {
  const hunk = hunks[k] as StructuredPatchHunk;
  const shift = hunks.slice(0, k).reduce((sum, h) => sum + h.newLines - h.oldLines, 0);
  const first = Math.max(hunk.oldStart - 1 + shift, 0);
  const fileLines = textBefore.split("\n").slice(first, first + Math.max(hunk.oldLines, 1));
  return new ToolhostError(
    "PATCH_FAILED",
    `Patch hunk ${k + 1} of ${hunks.length} (${describeEdit(at)}) does not apply to '${at.clientPath}'; nothing was changed. The hunk:\n` +
      `${formatHunk(hunk)}\n` +
      `The file has at line ${first + 1}:\n${fileLines.join("\n")}\n` +
      "Re-read the file and regenerate the diff against its current content.",
    { path: at.clientPath, edit: String(at.index), hunk: String(k + 1) },
  );
}

function formatHunk(hunk: StructuredPatchHunk): string {
  return [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines].join("\n");
}
