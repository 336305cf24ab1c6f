import { ToolhostError } from "../../errors/toolhost-error.js";
import { countOccurrences, replaceEvery } from "./cooperative.js";
import { checkProjectedLength, type SizeBound } from "./edit-size.js";
import { describeEdit, type EditPosition, type EditStep, type TextEdit } from "./edit-types.js";

type ReplaceEdit = Extract<TextEdit, { kind: "replace" }>;

/**
 * applyReplace replaces `oldText` in `text`: the first occurrence by default, every one with
 * `replaceAll`, and with `expectedReplacements` every one, which must then number exactly that.
 * Occurrences are counted left to right without overlap, as a reader would count them. With a
 * `bound`, a result over it is refused before it is built.
 */
export async function applyReplace(
  text: string,
  edit: ReplaceEdit,
  at: EditPosition,
  bound?: SizeBound,
  signal?: AbortSignal,
): Promise<EditStep> {
  if (edit.oldText === "") {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `old_text of ${describeEdit(at)} on '${at.clientPath}' is empty; give the exact text to replace, or use an append or insert edit.`,
      { path: at.clientPath, field: "old_text", edit: String(at.index) },
    );
  }
  const found = await countOccurrences(text, edit.oldText, signal);
  const expected = edit.expectedReplacements;
  if (found === 0 && expected !== 0) {
    throw new ToolhostError(
      "EDIT_TEXT_NOT_FOUND",
      `Text to replace not found in '${at.clientPath}' (${describeEdit(at)}): ${quote(edit.oldText)}${expected === undefined ? "" : ` (expected ${expected} replacements, found 0)`}; nothing was changed. Re-read the file and copy the text exactly, including whitespace.`,
      { path: at.clientPath, edit: String(at.index) },
    );
  }
  if (expected !== undefined && found !== expected) {
    throw new ToolhostError(
      "EDIT_COUNT_MISMATCH",
      `Expected ${expected} replacements but found ${found} occurrences of ${quote(edit.oldText)} in '${at.clientPath}' (${describeEdit(at)}); nothing was changed. Make old_text more specific or set expected_replacements to ${found}.`,
      { path: at.clientPath, edit: String(at.index), expected: String(expected), actual: String(found) },
    );
  }
  const all = expected !== undefined || edit.replaceAll === true;
  if (bound !== undefined) {
    checkProjectedLength(text.length + (all ? found : 1) * (edit.newText.length - edit.oldText.length), bound, at);
  }
  if (all) {
    return { text: await replaceEvery(text, edit.oldText, edit.newText, signal), replacements: found };
  }
  const start = text.indexOf(edit.oldText);
  return { text: text.slice(0, start) + edit.newText + text.slice(start + edit.oldText.length), replacements: 1 };
}

/** quote shows a searched text in a message, shortened so a huge old_text does not flood it. */
function quote(value: string): string {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return JSON.stringify(shown);
}
