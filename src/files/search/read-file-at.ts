import { binarySampleBytes } from "../read/detect-binary.js";
import { needBufferCode, type FsAt } from "../../sandbox/native/fs-at.js";
import { outcomeCodes, type SkipReason } from "./match-job.js";
import { growScratch, scratch } from "./scratch-buffer.js";

/** readAttempts bounds the re-reads of a file that keeps growing past the buffer sized for it. */
const readAttempts = 3;

/** info receives the addon's second answer (the length a larger buffer needs): one per thread. */
const info = new Float64Array(1);

/**
 * readFileAt reads the entry `name` of the held folder `dirFd` through the native addon, with the
 * checks of the JavaScript path (see FsAt.readFileAt): its content (in the scratch buffer, or a
 * larger one for a larger file), or why it was skipped. `isBinary` is the full binary test,
 * made on the first chunk when `fullCheck` (the addon tests for NUL only, as ripgrep does).
 */
export function readFileAt(fsAt: FsAt, dirFd: number, name: string, limit: number, fullCheck: boolean, isBinary: (sample: Buffer) => boolean): Buffer | SkipReason {
  let buffer: Buffer = scratch.buffer;
  for (let attempt = 0; attempt < readAttempts; attempt++) {
    const code = fsAt.readFileAt(dirFd, name, buffer, limit, info);
    if (code >= 0) {
      const content = buffer.subarray(0, code);
      return fullCheck && isBinary(content.subarray(0, binarySampleBytes)) ? "binary" : content;
    }
    if (code !== needBufferCode) return (outcomeCodes[-code] as SkipReason | undefined) ?? "unreadable";
    // The first chunk is in `buffer`: a binary file is not read again into a larger one.
    if (fullCheck && isBinary(buffer.subarray(0, binarySampleBytes))) return "binary";
    // Room to spare: a file being appended to (a log) has grown again by the next read, and a
    // buffer of its last length exactly would be too small each time (the JavaScript path grows
    // its buffer mid-read and has no such retry).
    try {
      buffer = growScratch(Math.min(limit, Math.ceil(info[0]! * (attempt === 0 ? 1.125 : 2))));
    } catch {
      return "unreadable"; // no memory for it (the JavaScript path's read fails the same way)
    }
  }
  return "unreadable";
}
