import { ToolhostError } from "../../errors/toolhost-error.js";
import type { EditPosition } from "./edit-types.js";

/** SizeBound is the largest result an edit may produce, and whether the file is written in CRLF. */
export interface SizeBound {
  readonly maxBytes: number;
  readonly crlf: boolean;
  /** A UTF-8 byte order mark adds 3 bytes to the file. */
  readonly bom: boolean;
}

/**
 * checkProjectedLength refuses an edit whose result would be `length` UTF-16 units long when that
 * alone proves the file over the limit (a unit is at least one byte). It runs before the text is
 * built, so a request cannot make the process build a string of hundreds of megabytes (a few
 * replace-all edits that each double the text) before the limit is noticed.
 */
export function checkProjectedLength(length: number, bound: SizeBound, at: EditPosition): void {
  if (length + (bound.bom ? 3 : 0) > bound.maxBytes) {
    throw resultTooLarge(at, length, bound.maxBytes, true);
  }
}

/**
 * checkResultSize refuses an edit whose result, as the bytes that would be written (UTF-8, the
 * file's line endings and byte order mark), is over the limit. The exact count runs only when the
 * cheap upper bound (3 bytes per unit) is over the limit.
 */
export function checkResultSize(text: string, bound: SizeBound, at: EditPosition): void {
  const extra = bound.bom ? 3 : 0;
  if (text.length * 3 + extra <= bound.maxBytes) {
    return;
  }
  let bytes = Buffer.byteLength(text, "utf8") + extra;
  if (bound.crlf) {
    for (let i = text.indexOf("\n"); i !== -1 && bytes <= bound.maxBytes; i = text.indexOf("\n", i + 1)) {
      bytes += 1;
    }
  }
  if (bytes > bound.maxBytes) {
    throw resultTooLarge(at, bytes, bound.maxBytes, false);
  }
}

function resultTooLarge(at: EditPosition, size: number, limit: number, atLeast: boolean): ToolhostError {
  return new ToolhostError(
    "TOO_LARGE",
    `Edit ${at.index} of ${at.count} on '${at.clientPath}' would make the file ${atLeast ? "at least " : ""}${size} bytes, over the limit of ${limit} bytes (limits.max_edit_bytes); nothing was changed. Make the edit smaller or replace the file with WriteFile or UploadFile.`,
    { path: at.clientPath, edit: String(at.index), size: String(size), limit: String(limit) },
  );
}
