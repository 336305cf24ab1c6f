import { lineEndingStyle } from "../write/newline.js";
import { applyInsert, applyAppend } from "./apply-insert.js";
import { applyUnifiedDiff } from "./apply-patch.js";
import { applyReplace } from "./apply-replace.js";
import type { EditStep, TextEdit } from "./edit-types.js";

/**
 * applyEdits applies `edits` in order, each to the result of the one before, and returns the final
 * text and the total number of replacements. The first edit that fails throws, so the edits apply
 * all or nothing.
 *
 * A CRLF file is edited in LF form and written back in CRLF, so edits written with "\n" match it
 * and lines the edits did not touch keep their endings. Only CRLF pairs are converted: a lone CR
 * inside a line survives the round trip unchanged.
 */
export function applyEdits(text: string, edits: readonly TextEdit[], clientPath: string): EditStep {
  const crlf = lineEndingStyle(text) === "crlf";
  const norm = crlf ? (s: string) => s.replace(/\r\n/g, "\n") : (s: string) => s;
  let current = norm(text);
  let replacements = 0;
  edits.forEach((edit, i) => {
    const at = { clientPath, index: i + 1, count: edits.length };
    const step = applyOne(current, edit, norm, at);
    current = step.text;
    replacements += step.replacements;
  });
  return { text: crlf ? current.replace(/\n/g, "\r\n") : current, replacements };
}

function applyOne(
  text: string,
  edit: TextEdit,
  norm: (s: string) => string,
  at: { clientPath: string; index: number; count: number },
): EditStep {
  switch (edit.kind) {
    case "replace":
      return applyReplace(text, { ...edit, oldText: norm(edit.oldText), newText: norm(edit.newText) }, at);
    case "append":
      return applyAppend(text, norm(edit.text));
    case "insert":
      return applyInsert(text, edit.line, norm(edit.text), at);
    case "patch":
      return applyUnifiedDiff(text, norm(edit.unifiedDiff), at);
  }
}
