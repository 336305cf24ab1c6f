import type { ReadHandle } from "../../sandbox/sandbox.js";
import { throwIfAborted } from "./abortable.js";
import type { LineSpan } from "./locate-lines.js";

const newline = 0x0a;
const firstChunk = 16 * 1024;

/**
 * locateTail finds the bytes of the last `lines` lines of a file by scanning backwards from
 * `size` in chunks (16 KiB first, doubling up to `chunkSize`), down to `from` (after a BOM) at most, so the cost depends on
 * the length of those lines, not on the file's. A final "\n" ends the last line rather than
 * starting an empty one, as in locateLines. The scan gives up once the span passes `maxBytes`
 * (the caller refuses it as TOO_LARGE): a file of one enormous line is not read whole.
 */
export async function locateTail(
  handle: ReadHandle,
  from: number,
  size: number,
  lines: number,
  chunkSize: number,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<LineSpan> {
  if (lines === 0 || size <= from) return { start: size, end: size };
  // Start small and double up to chunkSize: a short tail costs a small read, a long one few reads.
  let buffer = Buffer.allocUnsafe(Math.min(firstChunk, chunkSize, size - from));
  let found = 0;
  let end = size; // bytes before `end` are still to scan
  let skipFinalNewline = true;
  while (end > from) {
    throwIfAborted(signal);
    const length = Math.min(buffer.length, end - from);
    const start = end - length;
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    if (bytesRead < length) return { start: from, end: size }; // shrank meanwhile: send what there is
    for (let i = length - 1; i >= 0; i--) {
      if (buffer[i] !== newline) {
        skipFinalNewline = false;
        continue;
      }
      if (skipFinalNewline) {
        skipFinalNewline = false; // the newline ending the last line
        continue;
      }
      if (++found === lines) return { start: start + i + 1, end: size };
    }
    end = start;
    if (size - end > maxBytes) return { start: end, end: size };
    if (buffer.length < chunkSize) buffer = Buffer.allocUnsafe(Math.min(buffer.length * 2, chunkSize));
  }
  return { start: from, end: size };
}
