import { setImmediate as yieldToLoop } from "node:timers/promises";
import { throwIfAborted } from "../read/abortable.js";
import { applyEdits } from "./apply-edits.js";
import { boundedDiff } from "./diff/bounded-diff.js";
import type { EditLimits } from "./edit-limits.js";
import type { TextEdit } from "./edit-types.js";
import { decodeForEdit, encodeAfterEdit } from "./text-content.js";

/** yieldFromBytes is the size (before and after together) from which an edit yields to the event loop around its diff. */
const yieldFromBytes = 64 * 1024;

/** RenderedDiff is the reply's diff: unified, within limits.maxDiffBytes; "" when nothing changes. */
export interface RenderedDiff {
  readonly diff: string;
  readonly diffTruncated: boolean;
}

/** ComputedEdit is an edit worked out in memory: the bytes to write and what the reply says. */
export interface ComputedEdit {
  readonly bytes: Buffer;
  readonly changed: boolean;
  readonly replacements: number;
  /**
   * renderDiff renders the bounded diff of the change. The caller renders it before anything is
   * committed (EditFile: while the new content's fsync runs): a reply built from it always fits
   * the send limit, so an edit never commits and then fails to say so. A cancelled `signal`
   * stops it with the signal's error.
   */
  readonly renderDiff: () => Promise<RenderedDiff>;
}

/**
 * computeEdit decodes a file's bytes and applies the edits within `limits`; the diff is rendered
 * on demand (ComputedEdit.renderDiff). A cancelled `signal` stops it before it returns.
 */
export async function computeEdit(
  original: Buffer,
  edits: readonly TextEdit[],
  clientPath: string,
  limits: EditLimits,
  signal?: AbortSignal,
): Promise<ComputedEdit> {
  const decoded = decodeForEdit(original, clientPath);
  const edited = await applyEdits(decoded.text, edits, clientPath, {
    maxBytes: limits.maxEditBytes,
    bom: decoded.bom,
    signal,
  });
  const bytes = encodeAfterEdit({ text: edited.text, bom: decoded.bom });
  const changed = edited.text !== decoded.text;
  if (!changed) {
    return {
      bytes,
      changed,
      replacements: edited.replacements,
      renderDiff: () => Promise.resolve({ diff: "", diffTruncated: false }),
    };
  }
  const renderDiff = async (): Promise<RenderedDiff> => {
    // The diff is the other long step: let waiting calls run first, and skip it for a dead call.
    // A small file's diff takes less than a turn of the event loop, so it does not wait for one.
    const long = original.byteLength + bytes.byteLength > yieldFromBytes;
    if (long) await yieldToLoop();
    throwIfAborted(signal);
    const diff = boundedDiff(clientPath, decoded.text, edited.text, {
      maxBytes: limits.maxDiffBytes,
      timeoutMs: limits.diffTimeoutMs,
    });
    if (long) await yieldToLoop();
    throwIfAborted(signal);
    return { diff: diff.diff, diffTruncated: diff.truncated };
  };
  return { bytes, changed, replacements: edited.replacements, renderDiff };
}
