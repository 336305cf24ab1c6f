import { ToolhostError } from "../../errors/toolhost-error.js";
import { checkProjectedLength, type SizeBound } from "./edit-size.js";
import { describeEdit, type EditPosition, type EditStep } from "./edit-types.js";

/** applyAppend adds `addition` at the very end of `text`, exactly as given; over `bound` it is refused unbuilt. */
export function applyAppend(text: string, addition: string, at?: EditPosition, bound?: SizeBound): EditStep {
  if (at !== undefined && bound !== undefined) {
    checkProjectedLength(text.length + addition.length, bound, at);
  }
  return { text: text + addition, replacements: 0 };
}

/**
 * applyInsert inserts `insertion` before the 0-based `line` of `text`; `line` equal to the line
 * count inserts at the end. A line ending is added to an insertion that lacks one, and to a last
 * line that lacks one before inserting after it, so an insert never joins two lines.
 */
export function applyInsert(
  text: string,
  line: number,
  insertion: string,
  at: EditPosition,
  bound?: SizeBound,
): EditStep {
  const starts = lineStarts(text);
  const lineCount = starts.length;
  if (!Number.isSafeInteger(line) || line < 0 || line > lineCount) {
    throw new ToolhostError(
      "OUT_OF_RANGE",
      `Cannot insert before line ${line} of '${at.clientPath}' (${describeEdit(at)}): the file has ${lineCount} lines; use a line from 0 to ${lineCount} (${lineCount} appends); nothing was changed.`,
      { path: at.clientPath, edit: String(at.index), line: String(line), lines: String(lineCount) },
    );
  }
  const block = insertion === "" || insertion.endsWith("\n") ? insertion : `${insertion}\n`;
  const separator = line === lineCount && text !== "" && !text.endsWith("\n") ? "\n" : "";
  if (bound !== undefined) {
    checkProjectedLength(text.length + separator.length + block.length, bound, at);
  }
  if (line === lineCount) {
    return { text: text + separator + block, replacements: 0 };
  }
  const offset = starts[line] ?? text.length;
  return { text: text.slice(0, offset) + block + text.slice(offset), replacements: 0 };
}

/** lineStarts lists the offset where each line begins; a final "\n" does not start a new line. */
function lineStarts(text: string): number[] {
  if (text === "") {
    return [];
  }
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1 && i + 1 < text.length; i = text.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  return starts;
}
