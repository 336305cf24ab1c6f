import { setImmediate as yieldToLoop } from "node:timers/promises";
import { throwIfAborted } from "../read/abortable.js";
import { lineEndingStyle } from "../write/newline.js";
import { applyInsert, applyAppend } from "./apply-insert.js";
import { applyUnifiedDiff } from "./apply-patch.js";
import { applyReplace } from "./apply-replace.js";
import { checkResultSize, type SizeBound } from "./edit-size.js";
import type { EditPosition, EditStep, TextEdit } from "./edit-types.js";
import { hasMixedEndings, originsByDiff, splitEndedLines, withEndings } from "./line-endings.js";

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
 * and lines the edits did not touch keep their endings. A file that mixes CRLF and LF is edited
 * in LF form too and written back line by line (withEndings): each line keeps its own ending, a
 * new line takes the ending of the line it replaces or of its neighbour. Only CRLF pairs are
 * converted: a lone CR inside a line survives the round trip unchanged.
 *
 * Every edit's result is held to `maxBytes` (a replace-all, append or insert before its text is
 * built), the loop yields the event loop every few milliseconds so that other calls go on, and a
 * cancelled `signal` stops it between edits.
 */
export async function applyEdits(
  text: string,
  edits: readonly TextEdit[],
  clientPath: string,
  options: ApplyOptions,
): Promise<EditStep> {
  const mixed = hasMixedEndings(text);
  const crlf = !mixed && lineEndingStyle(text) === "crlf";
  // A mixed file's steps are held to its LF size (a lower bound); the result is checked exactly below.
  const bound: SizeBound = { maxBytes: options.maxBytes, crlf, bom: options.bom === true };
  const norm = crlf || mixed ? (s: string) => s.replace(/\r\n/g, "\n") : (s: string) => s;
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
  if (!mixed) return { text: crlf ? current.replace(/\n/g, "\r\n") : current, replacements };
  const restored = current === norm(text) ? text : restoreEndings(text, current);
  checkResultSize(restored, { ...bound, crlf: false }, { clientPath, index: edits.length, count: edits.length });
  return { text: restored, replacements };
}

/** restoreEndings writes a mixed-ending file's edited LF form back with each line's own ending. */
function restoreEndings(original: string, edited: string): string {
  if (edited === "") return "";
  const old = splitEndedLines(original);
  const lines = edited.split("\n");
  const finalNewline = lines.at(-1) === "";
  if (finalNewline) lines.pop();
  return withEndings(
    lines,
    originsByDiff(
      old.map((l) => l.text),
      lines,
    ),
    old,
    finalNewline,
  );
}

async function applyOne(
  text: string,
  edit: TextEdit,
  norm: (s: string) => string,
  at: EditPosition,
  bound: SizeBound,
  signal: AbortSignal | undefined,
): Promise<EditStep> {
  switch (edit.kind) {
    case "replace":
      return applyReplace(
        text,
        { ...edit, oldText: norm(edit.oldText), newText: norm(edit.newText) },
        at,
        bound,
        signal,
      );
    case "append":
      return applyAppend(text, norm(edit.text), at, bound);
    case "insert":
      return applyInsert(text, edit.line, norm(edit.text), at, bound);
    case "patch":
      return applyUnifiedDiff(text, norm(edit.unifiedDiff), at, signal);
  }
}
