import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ReadableFile } from "../../sandbox/sandbox.js";
import { releaseChunk, retainChunk } from "./chunk-buffers.js";
import type { NormalizedReadRequest } from "./normalize-read-request.js";
import { OffThreadSha256, readHashFailed } from "./off-thread-hash.js";
import { readInfo } from "./read-info.js";
import { readRange } from "./read-range.js";
import { hashingGate, readBufferBudget } from "./read-memory-budget.js";
import type { ReadPart } from "./read-types.js";

/** offThreadMinChunk is the chunk size from which hashing moves to a worker thread. */
const offThreadMinChunk = 64 * 1024;

/** maxChunksHashing is how many chunks the hash worker may be behind the stream. */
const maxChunksHashing = 2;

/**
 * readBytes streams any opened regular file as raw `data` chunks from byteOffset, at most
 * byteLimit bytes, in memory bounded by a few chunks and by its share of readBufferBudget (see
 * readRange; the sha256 of chunks of
 * 64 KiB and more is computed on a worker thread, at most maxChunksHashing chunks behind).
 *
 * Without a byte_limit it reads until the end of file, including bytes appended after the
 * open, so a growing log can be followed by asking again from next_offset.
 */
export async function* readBytes(
  file: ReadableFile,
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
  const hash = new OffThreadSha256(request.chunkSize >= offThreadMinChunk);
  // Chunks the hash worker has not finished with; bounded, so a slow worker slows the read
  // instead of holding more and more chunks in memory.
  const hashing: Array<Promise<void>> = [];
  let bytesSent = 0;
  let finished = false;
  // This read's part of the process's chunk memory (read-buffer-budget.ts): fair against every
  // other read, whatever pace each one's client reads at.
  const share = readBufferBudget.open();
  try {
    for await (const chunk of readRange(file.handle, request.byteOffset, end, request.chunkSize, signal, share)) {
      // Room in the hash worker's queue is shared by every read (read-memory-budget.ts); a chunk
      // hashed here on the event loop gives it back at once.
      const room = hash.offThread ? chunk.byteLength : 0;
      if (room > 0) {
        await hashingGate.take(room);
      }
      let hashed: Promise<void> | undefined;
      try {
        hashed = hash.update(chunk);
      } catch (err) {
        // The hash worker stopped (HASH_FAILED): the room taken is given back before the read fails.
        if (room > 0) {
          hashingGate.give(room);
        }
        throw readHashFailed(request.path, err);
      }
      if (hashed !== undefined) {
        retainChunk(chunk);
        hashing.push(
          hashed.then(() => {
            releaseChunk(chunk);
            hashingGate.give(room);
          }),
        );
      } else if (room > 0) {
        hashingGate.give(room);
      }
      bytesSent += chunk.length;
      yield { case: "data", value: chunk };
      while (hashing.length > maxChunksHashing) {
        await hashing.shift();
      }
    }
    finished = true;
  } finally {
    share.close();
    if (!finished) {
      hash.discard();
    }
  }
  const sha256 = await hash.digest().catch((err: unknown) => {
    throw readHashFailed(request.path, err);
  });
  const nextOffset = request.byteOffset + bytesSent;
  yield {
    case: "summary",
    value: {
      bytesSent,
      sha256,
      eof: end === undefined || nextOffset < end || nextOffset >= size,
      linesSent: 0,
      nextOffset,
      replacedSequences: 0,
    },
  };
}
