import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { isInside } from "../../sandbox/root-containing.js";
import { binarySampleBytes, detectBinary } from "../read/detect-binary.js";
import { matchContent } from "./match-content.js";
import type { BatchResult, FileJob, FileOutcome, MatchBatch } from "./match-job.js";
import type { MatchSpec } from "./match-spec.js";

/**
 * The match worker: opens, verifies, reads and matches the files of each MatchBatch it is sent,
 * synchronously (a worker thread has nothing else to do, and sync calls skip the event-loop
 * round trips that dominate a search of many small files).
 *
 * `workerData.openFd` is a shared slot holding the descriptor the worker has open (-1 when
 * none), so that a pool terminating a worker stuck past its time budget can close it.
 */
const openFd = new Int32Array(workerData.openFd as SharedArrayBuffer);
const openFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const regexCache = new Map<string, RegExp>();

parentPort!.on("message", (batch: MatchBatch) => {
  const regex = regexFor(batch.spec);
  const outcomes = batch.files.map((job) => matchFile(job, batch, regex));
  const result: BatchResult = { id: batch.id, outcomes };
  parentPort!.postMessage(result);
});

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

function matchFile(job: FileJob, batch: MatchBatch, regex: RegExp): FileOutcome {
  let fd: number;
  if (job.fd !== undefined) {
    fd = job.fd;
  } else {
    try {
      fd = openSync(`/proc/self/fd/${job.dirFd}/${job.name}`, openFlags);
    } catch {
      return { status: "skipped", why: "unreadable" }; // a link swapped in (ELOOP), gone, denied
    }
    Atomics.store(openFd, 0, fd);
  }
  let content: Buffer;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { status: "skipped", why: "not-regular" };
    // A second name may lie outside the roots, and nothing can tell where it is: skip.
    if (stats.nlink !== 1) return { status: "skipped", why: "hard-linked" };
    if (stats.size > batch.maxFileBytes) return { status: "skipped", why: "too-large" };
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    if (!batch.roots.some((root) => isInside(root, real))) return { status: "skipped", why: "outside" };
    content = readAll(fd, stats.size, batch.maxFileBytes);
  } catch {
    return { status: "skipped", why: "unreadable" };
  } finally {
    if (job.fd === undefined) {
      Atomics.store(openFd, 0, -1);
      closeSync(fd);
    }
  }
  if (isBinary(content)) return { status: "skipped", why: "binary" };
  if (batch.spec.literal !== undefined && content.indexOf(batch.spec.literal) === -1) {
    return { status: "searched", bytes: content.length, found: { lines: [], count: 0, more: false } };
  }
  const found = matchContent(content.toString("utf8"), regex, batch.spec, batch.skip, batch.cap);
  return { status: "searched", bytes: content.length, found };
}

/**
 * scratch is the worker's read buffer, reused from file to file (grown as needed, up to the
 * size limit): a search of many files then makes almost no garbage.
 */
let scratch = Buffer.allocUnsafe(1024 * 1024);

/** readAll reads a file from its start: its fstat size (less if it shrank since), at most the limit. */
function readAll(fd: number, size: number, limit: number): Buffer {
  const wanted = Math.min(limit, size + 1);
  if (scratch.length < wanted) scratch = Buffer.allocUnsafe(wanted);
  let buffer = scratch.length > limit ? scratch.subarray(0, limit) : scratch;
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length >= limit) break;
      const grown = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2 + 4096));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
      scratch = grown;
    }
    const n = readSync(fd, buffer, length, buffer.length - length, length);
    length += n;
    if (n === 0 || length === size) break; // its fstat size read: no extra call to see the end
  }
  return buffer.subarray(0, length);
}

/** controlByte matches a byte detectBinary counts as control (NUL included), in a latin1 string. */
const controlByte = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/;

/**
 * isBinary gives detectBinary's verdict, faster on text: a sample without a single control byte
 * (the common case) can only be binary by its magic number, which lies in the first bytes, so
 * detectBinary need only look at those. The native regex scan replaces a byte loop in JavaScript
 * that took a fifth of a search's time.
 */
function isBinary(content: Buffer): boolean {
  const sample = content.subarray(0, binarySampleBytes);
  return detectBinary(controlByte.test(sample.toString("latin1")) ? sample : sample.subarray(0, 32)).binary;
}
