import { createHash } from "node:crypto";
import type { Limits } from "../../config/config.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { OpenedFile } from "../../sandbox/sandbox.js";
import { Utf8ChunkDecoder } from "./decode-utf8-chunks.js";
import { cutTextChunks } from "./cut-text-chunks.js";
import { binarySampleBytes, detectBinary } from "./detect-binary.js";
import { locateLines } from "./locate-lines.js";
import { locateTail } from "./locate-tail.js";
import type { NormalizedReadRequest } from "./normalize-read-request.js";
import { readHead, readRange } from "./read-range.js";
import { readInfo } from "./read-info.js";
import type { ReadPart } from "./read-types.js";

const utf8Bom = [0xef, 0xbb, 0xbf] as const;
const newline = 0x0a;

/**
 * readText streams an opened file as UTF-8 text: refuses binary content and content over
 * limits.maxTextBytes before sending anything, strips a BOM, returns the asked line range, and
 * never splits a character across chunks.
 *
 * The size limit applies to the raw bytes of what would be sent (the whole file, or the line
 * range), so a file over the limit can still be read a range at a time. The file is read as of
 * its size when it was opened; bytes appended later are not sent.
 */
export async function* readText(
  file: OpenedFile,
  request: NormalizedReadRequest,
  limits: Limits,
  signal?: AbortSignal,
): AsyncGenerator<ReadPart, void, undefined> {
  const size = file.stats.size;
  const head = await readHead(file.handle, Math.min(size, binarySampleBytes), signal);
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
  const wholeFile = request.offset === 0 && request.limit === undefined && tail === undefined;
  const span = wholeFile
    ? { start: from, end: size }
    : tail !== undefined
      ? await locateTail(file.handle, from, size, tail, request.chunkSize, limits.maxTextBytes, signal)
      : await locateLines(file.handle, request.path, from, size, request.offset, request.limit, request.chunkSize, signal);
  const spanBytes = span.end - span.start;
  if ((wholeFile ? size : spanBytes) > limits.maxTextBytes) {
    throw tooLarge(request.path, wholeFile ? size : spanBytes, limits.maxTextBytes, wholeFile);
  }

  yield { case: "info", value: readInfo(file, request.path, "text", bom) };

  const hash = createHash("sha256");
  const decoder = new Utf8ChunkDecoder();
  let bytesSent = 0;
  let rawRead = 0;
  let newlines = 0;
  let lastByte: number | undefined;
  const emit = (utf8: Uint8Array): void => {
    hash.update(utf8);
    bytesSent += utf8.length;
  };
  for await (const chunk of readRange(file.handle, span.start, span.end, request.chunkSize, signal)) {
    rawRead += chunk.length;
    for (let i = chunk.indexOf(newline); i !== -1; i = chunk.indexOf(newline, i + 1)) {
      newlines++;
    }
    lastByte = chunk[chunk.length - 1];
    for (const piece of cutTextChunks(decoder.decode(chunk), request.chunkSize)) {
      if (piece.text.length > 0) {
        emit(piece.utf8);
        yield { case: "text", value: piece.text };
      }
    }
  }
  for (const piece of cutTextChunks(decoder.end(), request.chunkSize)) {
    if (piece.text.length > 0) {
      emit(piece.utf8);
      yield { case: "text", value: piece.text };
    }
  }
  const linesSent = newlines + (lastByte !== undefined && lastByte !== newline ? 1 : 0);
  yield {
    case: "summary",
    value: {
      bytesSent,
      sha256: hash.digest("hex"),
      eof: span.start + rawRead >= size || rawRead < spanBytes,
      linesSent,
      // A tail read does not count the lines before it, so it cannot say where it ends: 0.
      nextOffset: tail !== undefined ? 0 : request.offset + linesSent,
      replacedSequences: decoder.replacedSequences,
    },
  };
}

function tooLarge(path: string, bytes: number, limit: number, wholeFile: boolean): ToolhostError {
  const what = wholeFile ? `"${path}" is too large to read as text` : `The requested lines of "${path}" are too large to read as text`;
  const hint = wholeFile
    ? "read it a line range at a time (offset and limit) or in bytes mode (READ_MODE_BYTES)"
    : "ask for fewer lines (a smaller limit or tail_lines) or use bytes mode (READ_MODE_BYTES)";
  return new ToolhostError(
    "TOO_LARGE",
    `${what}: ${bytes} bytes, over the limit of ${limit} bytes; ${hint}.`,
    { path, size: String(bytes), limit: String(limit) },
  );
}
