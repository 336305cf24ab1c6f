import { ToolhostError } from "../../errors/toolhost-error.js";
import type { TextEdit } from "./edit-types.js";

/** EditLimits bound what one EditFile call may cost; each comes from a config key in limits. */
export interface EditLimits {
  /** Largest file an edit loads, and largest result any edit may produce, in bytes (max_edit_bytes). */
  readonly maxEditBytes: number;
  /** Most edits in one call (max_edits_per_call). */
  readonly maxEdits: number;
  /** Largest diff a reply carries, in UTF-8 bytes; a longer one is cut (max_edit_diff_bytes). */
  readonly maxDiffBytes: number;
  /** Longest a line-by-line diff may compute before a one-hunk diff is sent instead (edit_diff_timeout_ms). */
  readonly diffTimeoutMs: number;
}

/** defaultEditLimits are the limits of a call that names only maxEditBytes (tests, library use). */
export const defaultEditLimits: Omit<EditLimits, "maxEditBytes"> = Object.freeze({
  maxEdits: 1000,
  maxDiffBytes: 1024 * 1024,
  diffTimeoutMs: 200,
});

/**
 * checkEditRequest refuses, before any file is read, a call with no edits, more edits (counting
 * each patch hunk as one) than `maxEdits`, or an edit whose own text is over `maxEditBytes` (such a text can only make a file
 * over the limit, or search for text no loadable file holds).
 */
export function checkEditRequest(edits: readonly TextEdit[], clientPath: string, limits: EditLimits): void {
  if (edits.length === 0) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `EditFile on '${clientPath}' has no edits; send at least one replace, append, insert or patch edit.`,
      { path: clientPath, field: "edits" },
    );
  }
  if (edits.length > limits.maxEdits) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `EditFile on '${clientPath}' has ${edits.length} edits, over the limit of ${limits.maxEdits} (limits.max_edits_per_call); split them across calls or replace the file with WriteFile; nothing was changed.`,
      { path: clientPath, field: "edits", count: String(edits.length), limit: String(limits.maxEdits) },
    );
  }
  // Each patch hunk costs about what an edit does (and a failing patch is searched hunk by hunk),
  // so hunks count against the same limit.
  let hunks = 0;
  for (const edit of edits) {
    hunks += edit.kind === "patch" ? countHunks(edit.unifiedDiff) : 1;
  }
  if (hunks > limits.maxEdits) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `EditFile on '${clientPath}' has ${hunks} edits and patch hunks, over the limit of ${limits.maxEdits} (limits.max_edits_per_call); split the patch across calls; nothing was changed.`,
      { path: clientPath, field: "edits", count: String(hunks), limit: String(limits.maxEdits) },
    );
  }
  edits.forEach((edit, i) => {
    const bytes = editTextBytes(edit);
    if (bytes > limits.maxEditBytes) {
      throw new ToolhostError(
        "TOO_LARGE",
        `Edit ${i + 1} of ${edits.length} on '${clientPath}' carries ${bytes} bytes of text, over the limit of ${limits.maxEditBytes} bytes (limits.max_edit_bytes); replace the file with WriteFile or UploadFile instead; nothing was changed.`,
        { path: clientPath, edit: String(i + 1), size: String(bytes), limit: String(limits.maxEditBytes) },
      );
    }
  });
}

function editTextBytes(edit: TextEdit): number {
  switch (edit.kind) {
    case "replace":
      return Buffer.byteLength(edit.oldText, "utf8") + Buffer.byteLength(edit.newText, "utf8");
    case "append":
    case "insert":
      return Buffer.byteLength(edit.text, "utf8");
    case "patch":
      return Buffer.byteLength(edit.unifiedDiff, "utf8");
  }
}

/** countHunks counts the "@@" hunk header lines of a unified diff. */
function countHunks(unifiedDiff: string): number {
  let count = unifiedDiff.startsWith("@@") ? 1 : 0;
  for (let at = unifiedDiff.indexOf("\n@@"); at !== -1; at = unifiedDiff.indexOf("\n@@", at + 3)) {
    count += 1;
  }
  return count;
}
