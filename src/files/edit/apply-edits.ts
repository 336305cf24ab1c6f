import { setImmediate as yieldToLoop } from "node:timers/promises";
import { throwIfAborted } from "../read/abortable.js";
import { lineEndingStyle } from "../write/newline.js";
import { applyInsert, applyAppend } from "./apply-insert.js";
import { applyUnifiedDiff } from "./apply-patch.js";
import { applyReplace } from "./apply-replace.js";
import { checkResultSize, type SizeBound } from "./edit-size.js";
import type { EditPosition, EditStep, TextEdit } from "./edit-types.js";

/** ApplyOptions bound one applyEdits run. */
export interface ApplyOptions {
  /** Largest result, in bytes as written; every edit's result is checked, before it is built where possible. */
  readonly maxBytes: number;
  /** Whether the written file starts with a UTF-8 byte order mark (3 more bytes). */
  readonly bom?: boolean | undefined;
  /** A cancelled call stops between edits. */
  readonly signal?: AbortSignal | undefined;
}

/** yieldEveryMs is how long the edit loop runs before it lets other calls have the event loop. */
const yieldEveryMs = 10;

/**
 * applyEdits applies `edits` in order, each to the result of the one before, and returns the final
 * text and the total number of replacements. The first edit that fails throws, so the edits apply
 * all or nothing.
 *
 * A CRLF file is edited in LF form and written back in CRLF, so edits written with "\n" match it
 * and lines the edits did not touch keep their endings. Only CRLF pairs are converted: a lone CR
 * inside a line survives the round trip unchanged.
 *
 * Every edit's result is held to `maxBytes` (a replace-all, append or insert before its text is
 * built), the loop yields the event loop every few milliseconds so that other calls go on, and a
 * cancelled `signal` stops it between edits.
 */
export async function applyEdits(text: string, edits: readonly TextEdit[], clientPath: string, options: ApplyOptions): Promise<EditStep> {
  const crlf = lineEndingStyle(text) === "crlf";
  const bound: SizeBound = { maxBytes: options.maxBytes, crlf, bom: options.bom === true };
  const norm = crlf ? (s: string) => s.replace(/\r\n/g, "\n") : (s: string) => s;
  let current = norm(text);
  let replacements = 0;
  let lastYield = performance.now();
  for (let i = 0; i < edits.length; i++) {
    const at = { clientPath, index: i + 1, count: edits.length };
    const step = await applyOne(current, edits[i] as TextEdit, norm, at, bound, options.signal);
    checkResultSize(step.text, bound, at);
    current = step.text;
    replacements += step.replacements;
    if (performance.now() - lastYield > yieldEveryMs) {
      await yieldToLoop();
      lastYield = performance.now();
    }
    throwIfAborted(options.signal);
  }
  return { text: crlf ? current.replace(/\n/g, "\r\n") : current, replacements };
}

async function applyOne(text: string, edit: TextEdit, norm: (s: string) => string, at: EditPosition, bound: SizeBound, signal: AbortSignal | undefined): Promise<EditStep> {
  switch (edit.kind) {
    case "replace":
      return applyReplace(text, { ...edit, oldText: norm(edit.oldText), newText: norm(edit.newText) }, at, bound, signal);
    case "append":
      return applyAppend(text, norm(edit.text), at, bound);
    case "insert":
      return applyInsert(text, edit.line, norm(edit.text), at, bound);
    case "patch":
      return applyUnifiedDiff(text, norm(edit.unifiedDiff), at, signal);
  }
}
