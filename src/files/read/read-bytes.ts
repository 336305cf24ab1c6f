import { createHash } from "node:crypto";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { OpenedFile } from "../../sandbox/sandbox.js";
import type { NormalizedReadRequest } from "./normalize-read-request.js";
import { readInfo } from "./read-info.js";
import { readRange } from "./read-range.js";
import type { ReadPart } from "./read-types.js";

/**
 * readBytes streams any opened regular file as raw `data` chunks from byteOffset, at most
 * byteLimit bytes, in memory bounded by two chunks (see readRange).
 *
 * Without a byte_limit it reads until the end of file, including bytes appended after the
 * open, so a growing log can be followed by asking again from next_offset.
 */
export async function* readBytes(
  file: OpenedFile,
  request: NormalizedReadRequest,
  signal?: AbortSignal,
): AsyncGenerator<ReadPart, void, undefined> {
  const size = file.stats.size;
  if (request.byteOffset > size) {
    throw new ToolhostError(
      "OUT_OF_RANGE",
      `byte_offset ${request.byteOffset} is past the end of "${request.path}" (${size} bytes); ask for an offset from 0 to ${size}.`,
      { path: request.path, byte_offset: String(request.byteOffset), size: String(size) },
    );
  }
  yield { case: "info", value: readInfo(file, request.path, "bytes", false) };

  const end = request.byteLimit === undefined ? undefined : request.byteOffset + request.byteLimit;
  const hash = createHash("sha256");
  let bytesSent = 0;
  for await (const chunk of readRange(file.handle, request.byteOffset, end, request.chunkSize, signal)) {
    hash.update(chunk);
    bytesSent += chunk.length;
    yield { case: "data", value: chunk };
  }
  const nextOffset = request.byteOffset + bytesSent;
  yield {
    case: "summary",
    value: {
      bytesSent,
      sha256: hash.digest("hex"),
      eof: end === undefined || nextOffset < end || nextOffset >= size,
      linesSent: 0,
      nextOffset,
      replacedSequences: 0,
    },
  };
}
