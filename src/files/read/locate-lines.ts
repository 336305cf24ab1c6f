import type { ReadHandle } from "../../sandbox/sandbox.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { countNewlines } from "./count-newlines.js";
import { readRange } from "./read-range.js";

/**
 * LineSpan is the byte range [start, end) of a file that holds a range of lines.
 */
export interface LineSpan {
  readonly start: number;
  readonly end: number;
}

const newline = 0x0a;

/**
 * locateLines finds the bytes of `limit` lines (all remaining when undefined) starting at the
 * 0-based line `offset`, scanning the file from byte `from` (after a BOM) up to `size`.
 *
 * Lines end with "\n" (a "\r\n" line is found by its "\n"; the "\r" stays in the text). A last
 * line without a newline counts as a line. An offset equal to the number of lines gives an empty
 * span at the end; a larger one is OUT_OF_RANGE. The scan reads only as far as it must, a chunk
 * at a time, so a huge file can be read a range at a time in bounded memory.
 */
export async function locateLines(
  handle: ReadHandle,
  clientPath: string,
  from: number,
  size: number,
  offset: number,
  limit: number | undefined,
  chunkSize: number,
  signal?: AbortSignal,
): Promise<LineSpan> {
  let line = 0;
  let start = offset === 0 ? from : undefined;
  const stopAt = limit === undefined ? undefined : offset + limit;
  if (start !== undefined && (stopAt === undefined || stopAt === 0)) {
    return { start, end: stopAt === 0 ? start : size };
  }
  let position = from;
  let lastByte: number | undefined;
  for await (const chunk of readRange(handle, from, size, chunkSize, signal)) {
    // A chunk that ends before the line looked for is counted whole (countNewlines), not a line
    // at a time: a page deep into a large file passes every line before it.
    const looking = start === undefined ? offset : stopAt;
    const newlines = looking === undefined ? 0 : countNewlines(chunk);
    if (looking !== undefined && line + newlines < looking) {
      line += newlines;
      position += chunk.length;
      lastByte = chunk[chunk.length - 1];
      continue;
    }
    for (let i = chunk.indexOf(newline); i !== -1; i = chunk.indexOf(newline, i + 1)) {
      line++;
      const after = position + i + 1;
      if (line === offset) {
        start = after;
        if (stopAt === undefined || stopAt === offset) {
          return { start, end: stopAt === undefined ? size : start };
        }
      }
      if (line === stopAt && start !== undefined) {
        return { start, end: after };
      }
    }
    position += chunk.length;
    lastByte = chunk[chunk.length - 1];
  }
  const lineCount = line + (lastByte !== undefined && lastByte !== newline ? 1 : 0);
  if (start === undefined) {
    if (offset > lineCount) {
      throw new ToolhostError(
        "OUT_OF_RANGE",
        `Line offset ${offset} is past the end of "${clientPath}", which has ${lineCount} lines; ask for an offset from 0 to ${lineCount}.`,
        { path: clientPath, offset: String(offset), lines: String(lineCount) },
      );
    }
    start = position;
  }
  return { start, end: position };
}
