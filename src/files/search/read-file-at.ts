import { binarySampleBytes } from "../read/detect-binary.js";
import type { ContentRules } from "../../sandbox/content/content-rules.js";
import { nativeContent, type NativeContentReads } from "../../sandbox/content/native-content.js";
import { needBufferCode, noMatchCode } from "../../sandbox/native/fs-at.js";
import { outcomeCodes, type SkipReason } from "./match-job.js";
import { growScratch, scratch } from "./scratch-buffer.js";

/** FileRead is a file's content, why it was skipped, or (a number) the bytes of a file that cannot match. */
export type FileRead = Buffer | SkipReason | number;

/** readAttempts bounds the re-reads of a file that keeps growing past the buffer sized for it. */
const readAttempts = 3;

/** info receives the addon's second answer (the length a larger buffer needs): one per thread. */
const info = new Float64Array(1);

/**
 * readFileAt reads the entry `name` of the held folder `dirFd` through the native addon under the
 * caller's content rules (see FsAt.readFileAt, native-content.ts): its content (in the scratch buffer, or a
 * larger one for a larger file), or why it was skipped. `isBinary` is the full binary test,
 * made on the first chunk when `fullCheck` (the addon tests for NUL only, as ripgrep does).
 * With `needles` (packed required texts; fullCheck is then false) a file lacking one of them is
 * answered by its length alone: searched, nothing can match.
 */
export function readFileAt(
  rules: ContentRules,
  dirFd: number,
  name: string,
  limit: number,
  fullCheck: boolean,
  isBinary: (sample: Buffer) => boolean,
  needles?: Buffer,
  initial: Buffer = scratch.buffer,
  reads: NativeContentReads = nativeContent,
): FileRead {
  let buffer = initial;
  for (let attempt = 0; attempt < readAttempts; attempt++) {
    const code = reads.readContentAt(dirFd, name, buffer, limit, info, needles ?? null, rules);
    if (code === noMatchCode) return info[0]!;
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

/** outsideCode is readBatch's answer for a file whose folder is not at the walk's verified path. */
const outsideCode = -outcomeCodes.indexOf("outside");

/** movedReadBytes is the first buffer of a file read again because its folder moved. */
const movedReadBytes = 64 * 1024;

/** results holds readBatch's two numbers per file, reused from batch to batch. */
let results = new Float64Array(128);

/**
 * readBatchAt reads the files of one batch (entries `names`, joined by NUL, of the held folders
 * `dirFds`) through the native addon, a buffer-full per call, and hands each file's FileRead to
 * `each` in order; a content is valid only during its `each` call (the next read overwrites it).
 * With `folderPaths` (FileList.folderRealPaths) each file's name check asks for its folder's
 * verified path (see FsAt.readBatch); `each`'s `inRoots` says that check was made for the file
 * (its folder path was given, and it was read by readBatch, not alone by readFileAt).
 */
export function readBatchAt(
  rules: ContentRules,
  dirFds: Int32Array,
  names: string,
  limit: number,
  fullCheck: boolean,
  isBinary: (sample: Buffer) => boolean,
  needles: Buffer | undefined,
  each: (index: number, read: FileRead, inRoots: boolean) => void,
  folderPaths?: string,
  reads: NativeContentReads = nativeContent,
): void {
  const n = dirFds.length;
  if (results.length < 2 * n) results = new Float64Array(2 * n);
  let split: string[] | undefined;
  const paths = folderPaths?.split("\0");
  const checked = (i: number): boolean => paths !== undefined && (paths[i] ?? "") !== "";
  for (let from = 0; from < n; ) {
    const buffer = scratch.buffer;
    const next = reads.readContentBatch(
      dirFds,
      names,
      from,
      buffer,
      limit,
      needles ?? null,
      results,
      folderPaths ?? null,
      rules,
    );
    if (next <= from) throw new Error("readBatch made no progress"); // never: the first file of a call is always answered
    for (let i = from; i < next; i++) {
      const code = results[2 * i]!;
      const at = results[2 * i + 1]!;
      if (code >= 0) {
        const content = buffer.subarray(at, at + code);
        each(i, fullCheck && isBinary(content.subarray(0, binarySampleBytes)) ? "binary" : content, checked(i));
      } else if (code === noMatchCode) {
        each(i, at, checked(i));
      } else if (code === needBufferCode) {
        // Larger than the whole buffer: read alone into one of its size (the buffer of this call
        // keeps the contents of the files after it, not yet handed over).
        split ??= names.split("\0");
        let own: Buffer;
        try {
          own = growScratch(at);
        } catch {
          each(i, "unreadable", false); // no memory for it (the JavaScript path's read fails the same way)
          continue;
        }
        // Read alone by readFileAt, whose name check uses the folder's path at the time: not
        // checked against the verified path, so the caller checks the folder after the reads.
        each(i, readFileAt(rules, dirFds[i]!, split[i]!, limit, fullCheck, isBinary, needles, own, reads), false);
      } else if (code === outsideCode && checked(i)) {
        // Its folder is no longer at the path the walk verified (renamed since, perhaps within
        // the roots): read as without the path (its name checked against the folder's path of
        // the moment), and the caller checks that folder after the reads, as it did before the
        // paths were given. Into a buffer of its own: `buffer` still holds later files' contents.
        split ??= names.split("\0");
        each(
          i,
          readFileAt(
            rules,
            dirFds[i]!,
            split[i]!,
            limit,
            fullCheck,
            isBinary,
            needles,
            Buffer.allocUnsafe(movedReadBytes),
            reads,
          ),
          false,
        );
      } else {
        each(i, (outcomeCodes[-code] as SkipReason | undefined) ?? "unreadable", checked(i));
      }
    }
    from = next;
  }
}
