import { isUtf8 } from "node:buffer";
import type { Limits } from "../../config/config.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ReadableFile, ReadHandle } from "../../sandbox/sandbox.js";
import { abortable } from "./abortable.js";
import { allocateChunk, releaseChunk, trimChunk } from "./chunk-buffers.js";
import { countNewlines } from "./count-newlines.js";
import { incompleteTailStart, Utf8ChunkDecoder } from "./decode-utf8-chunks.js";
import { cutTextChunks } from "./cut-text-chunks.js";
import { binarySampleBytes, detectBinary } from "./detect-binary.js";
import { locateLines } from "./locate-lines.js";
import { locateTail } from "./locate-tail.js";
import type { NormalizedReadRequest } from "./normalize-read-request.js";
import { readHead, readRange } from "./read-range.js";
import { readInfo } from "./read-info.js";
import type { ReadPart } from "./read-types.js";
import { StreamHash } from "./stream-hash.js";
import { checkPageStart, identityOf, stalePageStart } from "./text-page.js";
import { utf8TextPart } from "./text-part.js";

const utf8Bom = [0xef, 0xbb, 0xbf] as const;
const newline = 0x0a;

/** A text read hashes on the worker thread from this many bytes, in chunks of at least offThreadMinChunk. */
const offThreadMinSpan = 256 * 1024;
const offThreadMinChunk = 64 * 1024;

/**
 * readText streams an opened file as UTF-8 text: refuses binary content and content over
 * limits.maxTextBytes before sending anything, strips a BOM, returns the asked line range, and
 * never splits a character across chunks.
 *
 * Valid UTF-8 is sent as the very bytes read (utf8TextPart), in chunk buffers a transport can
 * frame in place; only a chunk with invalid sequences is decoded (U+FFFD) and encoded again. The
 * sha256 of a read over offThreadMinSpan is computed on the hash worker (StreamHash).
 *
 * The size limit applies to the raw bytes of what would be sent (the whole file, or the line
 * range), so a file over the limit can still be read a range at a time. The file is read as of
 * its size when it was opened; bytes appended later are not sent.
 *
 * A page of a tool's paging (request.page) with a start begins at that byte, once the start is
 * checked against the file opened, instead of counting lines from the top; a page longer than
 * its collector takes is not hashed (its summary is never read). Either way the page is told
 * where it started.
 */
export async function* readText(
  file: ReadableFile,
  request: NormalizedReadRequest,
  limits: Limits,
  signal?: AbortSignal,
): AsyncGenerator<ReadPart, void, undefined> {
  const size = file.stats.size;
  const page = request.page;
  const pageStart = page?.start;
  if (pageStart !== undefined) {
    checkPageStart(pageStart, file.stats, request.path);
    // A cursor's start follows a line break. A rewrite with as many bytes in one timestamp tick
    // keeps the identity, so the byte before the start is checked too: the page then never
    // starts inside a line or a character.
    if (pageStart.byte > 0) {
      const before = await readRangeHead(file.handle, pageStart.byte - 1, signal);
      if (before !== newline) throw stalePageStart(request.path);
    }
  }
  // A whole file of at most one chunk is read once: its first bytes are the binary sample.
  const small =
    request.offset === 0 &&
    request.limit === undefined &&
    request.tailLines === undefined &&
    pageStart === undefined &&
    size > 0 &&
    size <= request.chunkSize;
  const whole = small ? await readWhole(file.handle, size, signal) : undefined;
  const head =
    whole !== undefined
      ? whole.subarray(0, binarySampleBytes)
      : await readHead(file.handle, Math.min(size, binarySampleBytes), signal);
  const verdict = detectBinary(head);
  if (verdict.binary) {
    throw new ToolhostError(
      "BINARY_FILE",
      `Binary file detected: "${request.path}" cannot be read as text because ${verdict.why}; read it in bytes mode (READ_MODE_BYTES).`,
      { path: request.path },
    );
  }
  const bom = utf8Bom.every((byte, i) => head[i] === byte);
  const from = bom ? utf8Bom.length : 0;
  const tail = request.tailLines;
  const wholeFile =
    request.offset === 0 && request.limit === undefined && tail === undefined && pageStart === undefined;
  const span = wholeFile
    ? { start: from, end: size }
    : tail !== undefined
      ? await locateTail(file.handle, from, size, tail, request.chunkSize, limits.maxTextBytes, signal)
      : pageStart !== undefined
        ? await locateLines(
            file.handle,
            request.path,
            Math.max(pageStart.byte, from),
            size,
            0,
            request.limit,
            request.chunkSize,
            signal,
          )
        : await locateLines(
            file.handle,
            request.path,
            from,
            size,
            request.offset,
            request.limit,
            request.chunkSize,
            signal,
          );
  const spanBytes = span.end - span.start;
  if ((wholeFile ? size : spanBytes) > limits.maxTextBytes) {
    throw tooLarge(request.path, wholeFile ? size : spanBytes, limits.maxTextBytes, wholeFile);
  }

  if (page !== undefined && tail === undefined) {
    page.started = { byte: span.start, line: request.offset, identity: identityOf(file.stats) };
  }
  yield { case: "info", value: readInfo(file, request.path, "text", bom) };

  // A read of more than a few chunks hashes on the worker, overlapped with reading and sending.
  // A page its collector cuts (its text is at least as many bytes as its span) is not hashed,
  // and is read only one byte past what the collector takes: that byte's text cuts it.
  const cutPage = page !== undefined && spanBytes > page.collectBytes;
  const hash = cutPage
    ? undefined
    : new StreamHash(spanBytes >= offThreadMinSpan && request.chunkSize >= offThreadMinChunk, request.path);
  const readEnd = cutPage ? span.start + page.collectBytes + 1 : span.end;
  const decoder = new Utf8ChunkDecoder();
  let bytesSent = 0;
  let rawRead = 0;
  let newlines = 0;
  let lastByte: number | undefined;
  // The start of a character cut by the end of the previous chunk (at most 3 bytes).
  let carry: Uint8Array | undefined;
  async function* send(bytes: Uint8Array, final: boolean): AsyncGenerator<ReadPart, void, undefined> {
    if (bytes.length === 0 && !(final && decoder.pending)) {
      return;
    }
    // Bytes the decoder holds (an invalid chunk ended inside a character) come first: valid bytes
    // after them go through the decoder too, or the held bytes would be sent late or never.
    if (!decoder.pending && isUtf8(bytes)) {
      // Valid: the bytes are sent as they are, never decoded (see utf8TextPart).
      await hash?.update(bytes);
      bytesSent += bytes.length;
      yield utf8TextPart(bytes);
      await hash?.settle();
      return;
    }
    const decoded = decoder.decode(bytes, final);
    // The decoder may answer with a view of `bytes` (its valid part before a cut character),
    // which the hash worker reads later: the chunk is then left to the collector, not reused.
    if (decoded.utf8.buffer !== bytes.buffer) {
      releaseChunk(bytes);
    }
    for (const piece of cutTextChunks(decoded, request.chunkSize)) {
      if (piece.text.length > 0) {
        await hash?.update(piece.utf8);
        bytesSent += piece.utf8.length;
        yield { case: "text", value: piece.text };
      }
    }
  }
  let finished = false;
  try {
    const chunks =
      whole !== undefined
        ? only(from === 0 && readEnd >= whole.length ? whole : whole.subarray(from, readEnd))
        : readRange(file.handle, span.start, readEnd, request.chunkSize, signal);
    for await (const raw of chunks) {
      rawRead += raw.length;
      // A cut page's summary (its line count) is never read: its lines are not counted.
      if (!cutPage) newlines += countNewlines(raw);
      lastByte = raw[raw.length - 1];
      let chunk = carry === undefined ? raw : joinChunks(carry, raw);
      carry = undefined;
      const cut = incompleteTailStart(chunk);
      if (cut < chunk.length) {
        carry = Uint8Array.prototype.slice.call(chunk, cut);
        chunk = trimChunk(chunk as Buffer, cut);
      }
      // A carried character can make a chunk longer than the chunk size: its last characters
      // (a few bytes) then go in a chunk of their own.
      const over = chunk.length > request.chunkSize ? characterStart(chunk, request.chunkSize) : chunk.length;
      const rest = over < chunk.length ? Uint8Array.prototype.slice.call(chunk, over) : undefined;
      yield* send(rest === undefined ? chunk : trimChunk(chunk as Buffer, over), false);
      if (rest !== undefined) {
        yield* send(rest, false);
      }
    }
    // A character cut by the end of the file (carried here or held by the decoder): invalid,
    // replaced by U+FFFD.
    yield* send(carry ?? new Uint8Array(0), true);
    finished = true;
  } finally {
    if (!finished) {
      hash?.discard();
    }
  }
  if (hash === undefined && rawRead < readEnd - span.start) {
    // Its collector would have cut the page, so it was not hashed; it ended early only because
    // the file shrank, and a summary without the sha256 of what was sent would be wrong.
    throw new ToolhostError(
      "FILE_CHANGED",
      `"${request.path}" shrank while it was being read (only ${rawRead} of the ${readEnd - span.start} bytes to read were there); read it again.`,
      { path: request.path },
    );
  }
  const linesSent = newlines + (lastByte !== undefined && lastByte !== newline ? 1 : 0);
  yield {
    case: "summary",
    value: {
      bytesSent,
      sha256: hash === undefined ? "" : await hash.digest(),
      eof: !cutPage && (span.start + rawRead >= size || rawRead < spanBytes),
      linesSent,
      // A tail read does not count the lines before it, so it cannot say where it ends: 0.
      nextOffset: tail !== undefined ? 0 : request.offset + linesSent,
      replacedSequences: decoder.replacedSequences,
    },
  };
}

function tooLarge(path: string, bytes: number, limit: number, wholeFile: boolean): ToolhostError {
  const what = wholeFile
    ? `"${path}" is too large to read as text`
    : `The requested lines of "${path}" are too large to read as text`;
  const hint = wholeFile
    ? "read it a line range at a time (offset and limit) or in bytes mode (READ_MODE_BYTES)"
    : "ask for fewer lines (a smaller limit or tail_lines) or use bytes mode (READ_MODE_BYTES)";
  return new ToolhostError("TOO_LARGE", `${what}: ${bytes} bytes, over the limit of ${limit} bytes; ${hint}.`, {
    path,
    size: String(bytes),
    limit: String(limit),
  });
}

/** joinChunks puts the carried start of a character in front of the next chunk, in a chunk buffer of its own. */
function joinChunks(carry: Uint8Array, chunk: Uint8Array): Buffer {
  const joined = allocateChunk(carry.length + chunk.length);
  joined.set(carry, 0);
  joined.set(chunk, carry.length);
  releaseChunk(chunk);
  return joined;
}

/**
 * characterStart returns the start of the character at `at`, looking back at most 3 bytes (the
 * longest a character's continuation is): in invalid text, where a longer run of continuation
 * bytes can occur, each of them is replaced on its own, wherever the cut.
 */
function characterStart(bytes: Uint8Array, at: number): number {
  let start = at;
  while (start > at - 3 && start > 0 && (bytes[start]! & 0xc0) === 0x80) {
    start--;
  }
  return start;
}

/** readRangeHead is the byte at `at` of an opened file (undefined past its end). */
async function readRangeHead(
  handle: ReadHandle,
  at: number,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const one = Buffer.alloc(1);
  const { bytesRead } = await abortable(handle.read(one, 0, 1, at), signal);
  return bytesRead === 1 ? one[0] : undefined;
}

/** readWhole reads a file of `size` bytes (at most one chunk) into one chunk buffer; shorter if it shrank. */
async function readWhole(handle: ReadHandle, size: number, signal: AbortSignal | undefined): Promise<Buffer> {
  const chunk = allocateChunk(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await abortable(handle.read(chunk, filled, size - filled, filled), signal);
    if (bytesRead === 0) {
      break;
    }
    filled += bytesRead;
  }
  return trimChunk(chunk, filled);
}

/** only yields one chunk, the way readRange yields many. */
async function* only(chunk: Uint8Array): AsyncGenerator<Uint8Array, void, undefined> {
  yield chunk;
}
