import { isAscii } from "node:buffer";
import { closeSync, fstatSync, readlinkSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { workerReady } from "./match-job.js";
import { isInside } from "../../sandbox/root-containing.js";
import { binarySampleBytes, detectBinary } from "../read/detect-binary.js";
import { matchContent } from "./match-content.js";
import { matchLines } from "./match-lines.js";
import {
  fileNames,
  outcomeCodes,
  type BatchResult,
  type FileOutcome,
  type MatchBatch,
  type SkipReason,
} from "./match-job.js";
import type { MatchSpec } from "./match-spec.js";
import { isToolhostError } from "../../errors/toolhost-error.js";
import { ContentFolder } from "../../sandbox/content/content-folder.js";
import { nativeContentReads } from "../../sandbox/content/native-content.js";
import { openContentAtSync } from "../../sandbox/content/open-content.js";
import { fsAt, packNeedles } from "../../sandbox/native/fs-at.js";
import { readBatchAt, type FileRead } from "./read-file-at.js";
import { growScratch, noteScratchUse, scratch } from "./scratch-buffer.js";

/**
 * The match worker: opens, verifies, reads and matches the files of each MatchBatch it is sent,
 * synchronously (a worker thread has nothing else to do, and sync calls skip the event-loop
 * round trips that dominate a search of many small files).
 *
 * `workerData.openFd` is a shared slot holding the descriptor the worker has open (-1 when
 * none), so that a pool terminating a worker stuck past its time budget can close it.
 *
 * Every file is opened through the sandbox's content path under the batch's rules: with the
 * native addon a file of a held folder is opened, checked, read and closed in one native call
 * (readBatch, the content path's rules in C: openat instead of /proc/self/fd/DIR/NAME), and
 * JavaScript only matches; no descriptor is open while JavaScript runs. Without it, or with
 * TOOLHOST_NATIVE=0, openContentAtSync does the same through /proc, its one-name check made
 * against the held folder a run of files at a time (ContentFolder)
 * (docs/adr/0002-native-fs-at-addon.md; the checks: docs/adr/0001-sandbox-verified-handles.md).
 */
const openFd = new Int32Array(workerData.openFd as SharedArrayBuffer);
const regexCache = new Map<string, RegExp>();
const noMatches = { lines: [], count: 0, more: false } as const;
/** folder is the held folder the JavaScript path's one-name checks are made against, a batch at a time. */
const folder = new ContentFolder();

parentPort!.on("message", (batch: MatchBatch) => {
  const regex = regexFor(batch.spec);
  const required = requiredBytes(batch.spec);
  const needles = requiredCache?.packed;
  const { fds, borrowed } = batch.files;
  const outcomes: FileOutcome[] = new Array<FileOutcome>(fds.length);
  /** Files whose folder the addon checked per file against its verified path (see readBatchAt). */
  let inRoots: Uint8Array | undefined;
  if (!borrowed && nativeContentReads) {
    const checked = new Uint8Array(fds.length);
    inRoots = checked;
    readBatchAt(
      batch.rules,
      fds,
      batch.files.names,
      batch.maxFileBytes,
      required === undefined,
      isBinary,
      needles,
      (i, read, inside) => {
        outcomes[i] = outcomeOf(read, batch, regex, required);
        checked[i] = inside ? 1 : 0;
      },
      batch.files.folderRealPaths,
    );
  } else {
    const names = fileNames(batch.files);
    try {
      for (let i = 0; i < fds.length; i++)
        outcomes[i] = matchFile(fds[i]!, borrowed ? undefined : names[i]!, batch, regex, required);
    } finally {
      folder.close();
    }
  }
  if (!borrowed) discardFoldersOutside(batch, outcomes, inRoots);
  const result: BatchResult = {
    id: batch.id,
    codes: new Uint8Array(fds.length),
    bytes: new Float64Array(fds.length),
    matched: [],
    found: [],
  };
  outcomes.forEach((outcome, i) => {
    if (outcome.status === "skipped") {
      result.codes[i] = outcomeCodes.indexOf(outcome.why);
    } else {
      result.bytes[i] = outcome.bytes;
      if (outcome.found.count > 0 || outcome.found.more) {
        result.matched.push(i);
        result.found.push(outcome.found);
      }
    }
  });
  parentPort!.postMessage(result);
  noteScratchUse();
});
// Loaded and listening: the pool starts the first batch's time budget from here (see MatchPool).
parentPort!.postMessage(workerReady);

/**
 * discardFoldersOutside checks, once per folder and after its files were read, that the folder a
 * batch's files were opened in still lies inside the roots; the outcomes of a folder that does
 * not are replaced by "outside" skips. Files the addon checked one by one (`inRoots`: each file's
 * kernel path, after its barrier, was its folder's path as the walk verified it inside the roots,
 * + "/" + its name; see FsAt.readBatch) need no folder check: theirs was made per file, at each
 * file's name check, which is what this check stands for, made once.
 *
 * Why once per folder and not once per file: a file opened as /proc/self/fd/DIRFD/NAME with
 * O_NOFOLLOW is an entry of the held folder inode itself (a link in its place fails with ELOOP).
 * That folder's real path was verified when the walk opened it. The only way such a file can lie
 * outside the roots is that the folder was renamed out of them meanwhile; this check, made after
 * the reads, catches a folder that is still out. One moved out and back between two checks gives
 * nothing a per-file check would deny: whoever can rename it can as well move whatever it holds
 * back inside the roots, where the search may read it anyway. Hard-linked files are skipped
 * (nlink != 1) unless the rules allow them, so no file reaches outside through a second name.
 */
function discardFoldersOutside(batch: MatchBatch, outcomes: FileOutcome[], inRoots: Uint8Array | undefined): void {
  const verdicts = new Map<number, boolean>();
  for (let i = 0; i < batch.files.fds.length; i++) {
    if (inRoots?.[i] === 1) continue;
    const dirFd = batch.files.fds[i]!;
    let inside = verdicts.get(dirFd);
    if (inside === undefined) {
      inside = folderInside(dirFd, batch.rules.roots);
      verdicts.set(dirFd, inside);
    }
    if (!inside) outcomes[i] = { status: "skipped", why: "outside" };
  }
}

function folderInside(dirFd: number, roots: readonly string[]): boolean {
  try {
    const real = fsAt !== undefined ? fsAt.fdPath(dirFd) : readlinkSync(`/proc/self/fd/${dirFd}`);
    return real !== null && roots.some((root) => isInside(root, real));
  } catch {
    return false; // no /proc: cannot verify, so do not use
  }
}

let requiredCache:
  | { readonly key: string; readonly bytes: Buffer[] | undefined; readonly packed: Buffer | undefined }
  | undefined;

/** requiredBytes is the spec's required texts as UTF-8 bytes (encoded once, not per file). */
function requiredBytes(spec: MatchSpec): Buffer[] | undefined {
  const key = spec.required.join("\0");
  if (requiredCache?.key !== key) {
    const bytes = spec.required.length === 0 ? undefined : spec.required.map((t) => Buffer.from(t, "utf8"));
    requiredCache = { key, bytes, packed: bytes === undefined ? undefined : packNeedles(bytes) };
  }
  return requiredCache.bytes;
}

function regexFor(spec: MatchSpec): RegExp {
  const key = `${spec.flags}/${spec.source}`;
  let regex = regexCache.get(key);
  if (regex === undefined) {
    if (regexCache.size > 16) regexCache.clear();
    regex = new RegExp(spec.source, `gm${spec.flags}`);
    regexCache.set(key, regex);
  }
  return regex;
}

/** outcomeOf is the outcome of a file the native addon read (see readBatchAt). */
function outcomeOf(read: FileRead, batch: MatchBatch, regex: RegExp, required: Buffer[] | undefined): FileOutcome {
  if (typeof read === "string") return { status: "skipped", why: read };
  if (typeof read === "number") return { status: "searched", bytes: read, found: noMatches };
  // The addon was given the required texts (needles) and answers a file lacking one with its
  // length (the number above): a content it hands over holds them all, so they are not searched
  // for again here.
  return matchRead(read, batch, regex, required, true);
}

/**
 * matchFile opens, checks, reads and matches one file: `name` in the folder `fd`, opened through
 * the content path under the batch's rules, or the borrowed file `fd` itself when no name is
 * given (the caller opened it through the content path).
 */
function matchFile(
  fd: number,
  name: string | undefined,
  batch: MatchBatch,
  regex: RegExp,
  required: Buffer[] | undefined,
): FileOutcome {
  let file = fd;
  if (name !== undefined) {
    try {
      file = openContentAtSync(fd, name, name, batch.rules, folder, openFd).fd;
    } catch (err) {
      return { status: "skipped", why: skipReasonOf(err) };
    }
  }
  let content: Buffer | undefined;
  try {
    const stats = fstatSync(file);
    if (!stats.isFile()) return { status: "skipped", why: "not-regular" };
    if (stats.size > batch.maxFileBytes) return { status: "skipped", why: "too-large" };
    content = readText(file, stats.size, batch.maxFileBytes, required === undefined);
  } catch {
    return { status: "skipped", why: "unreadable" };
  } finally {
    if (name !== undefined) {
      Atomics.store(openFd, 0, -1);
      closeSync(file);
    }
  }
  if (content === undefined) return { status: "skipped", why: "binary" };
  return matchRead(content, batch, regex, required);
}

/**
 * skipReasonOf names a content-path refusal as the search reports it, as the addon's codes do: a
 * second name, or a name removed or moved since it was counted, is "hard-linked"; a file no longer
 * inside the roots "outside"; anything else that is not a regular file "not-regular".
 */
function skipReasonOf(err: unknown): SkipReason {
  if (isToolhostError(err, "NOT_A_REGULAR_FILE")) return "not-regular";
  if (isToolhostError(err, "FILE_CHANGED")) return "hard-linked";
  if (isToolhostError(err, "PATH_TRAVERSAL")) return err.metadata["links"] !== undefined ? "hard-linked" : "outside";
  return "unreadable";
}

/**
 * matchRead matches a file's content (binary-tested on its first chunk only when `required`);
 * `holdsRequired` says the content is known to hold every required text (the addon checked).
 */
function matchRead(
  content: Buffer,
  batch: MatchBatch,
  regex: RegExp,
  required: Buffer[] | undefined,
  holdsRequired = false,
): FileOutcome {
  if (required !== undefined) {
    // A file without the text every match contains cannot match: no decoding, no full binary
    // test (its NUL test was made on the first chunk). One that may match gets the full test.
    if (!holdsRequired && required.some((bytes) => content.indexOf(bytes) === -1))
      return { status: "searched", bytes: content.length, found: { lines: [], count: 0, more: false } };
    if (isBinary(content.subarray(0, binarySampleBytes))) return { status: "skipped", why: "binary" };
  }
  const spec = batch.spec;
  if (spec.lineBound && required !== undefined && spec.contextBefore === 0 && spec.contextAfter === 0) {
    return {
      status: "searched",
      bytes: content.length,
      found: matchLines(content, required[0]!, regex, spec, batch.skip, batch.cap),
    };
  }
  // Pure ASCII decodes the same as latin1, which is a plain byte copy: far cheaper than UTF-8.
  const text = isAscii(content) ? content.toString("latin1") : content.toString("utf8");
  const found = matchContent(text, regex, spec, batch.skip, batch.cap);
  return { status: "searched", bytes: content.length, found };
}

/** firstReadBytes is the first read of a file: most files in one call, binary ones stop there. */
const firstReadBytes = 64 * 1024;

/**
 * readText reads a file from its start: its fstat size (less if it shrank since), at most the
 * limit; undefined when its first bytes are binary, then read no further (a 40 MB executable
 * costs one 64 KiB read, not 40 MB). `fullCheck` false tests the first bytes for NUL only (as
 * ripgrep does); the caller then makes the full test if the file may match.
 */
function readText(fd: number, size: number, limit: number, fullCheck: boolean): Buffer | undefined {
  const wanted = Math.min(limit, size + 1);
  let buffer = scratch.buffer.subarray(0, Math.min(wanted, scratch.buffer.length));
  let length = 0;
  let sampled = false;
  for (;;) {
    if (length === buffer.length) {
      if (length >= wanted) break;
      // Grown only now, after the binary test: a large binary file never gets a large buffer.
      const grown = growScratch(wanted);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const n = readSync(
      fd,
      buffer,
      length,
      Math.min(buffer.length - length, sampled ? buffer.length : firstReadBytes - length),
      length,
    );
    length += n;
    const ended = n === 0 || length >= size; // fstat size read: no extra call to see the end
    if (!sampled && (ended || length >= binarySampleBytes)) {
      const sample = buffer.subarray(0, Math.min(length, binarySampleBytes));
      if (fullCheck ? isBinary(sample) : sample.indexOf(0) !== -1) return undefined;
      sampled = true;
    }
    if (ended) break;
  }
  return buffer.subarray(0, length);
}

/** isBinary is detectBinary's verdict on the start of `content`. */
function isBinary(content: Buffer): boolean {
  return detectBinary(content).binary;
}
