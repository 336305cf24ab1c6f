import type { ReadHandle } from "../../sandbox/sandbox.js";
import { abortable, throwIfAborted } from "./abortable.js";
import { allocateChunk, trimChunk } from "./chunk-buffers.js";
import { readAheadGate } from "./read-memory-budget.js";

/**
 * readRange yields the bytes of [start, end) of an open file (end undefined: to the end of the
 * file) in chunks of at most `chunkSize`, reading the next chunk while the caller handles the
 * current one.
 *
 * Memory stays at two chunks whatever the file size or the consumer's pace: exactly one read
 * is started ahead, and nothing more is read until the caller asks for the next chunk. Each
 * chunk is a buffer of its own (a consumer may still hold the previous one), taken from
 * allocateChunk and reused only once its last holder releases it. A read that
 * returns 0 bytes (the file shrank) ends the range early.
 */
export async function* readRange(
  handle: ReadHandle,
  start: number,
  end: number | undefined,
  chunkSize: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  throwIfAborted(signal);
  let position = start;
  const readAt = (at: number): Promise<Uint8Array> | undefined => {
    const length = end === undefined ? chunkSize : Math.min(chunkSize, end - at);
    if (length <= 0) {
      return undefined;
    }
    // With headroom in front (see chunkHeadroom), so a transport can frame it without a copy.
    const buffer = allocateChunk(length);
    return handle.read(buffer, 0, length, at).then(({ bytesRead }) => trimChunk(buffer, bytesRead));
  };
  let pending = readAt(position);
  // Bytes of `pending` counted in readAheadGate: a read started before the consumer asked for
  // it is held while the consumer waits (e.g. for room on its connection), so across all reads
  // such chunks are bounded; past the bound the next chunk is read only when asked for.
  let ahead = 0;
  try {
    while (pending !== undefined) {
      const chunk = await abortable(pending, signal);
      pending = undefined;
      readAheadGate.give(ahead);
      ahead = 0;
      if (chunk.length === 0) {
        return;
      }
      position += chunk.length;
      const nextLength = end === undefined ? chunkSize : Math.min(chunkSize, end - position);
      if (nextLength > 0 && readAheadGate.tryTake(nextLength)) {
        ahead = nextLength;
        pending = readAt(position);
      }
      yield chunk;
      throwIfAborted(signal);
      pending ??= readAt(position);
    }
  } finally {
    readAheadGate.give(ahead);
    // An abandoned read-ahead must not become an unhandled rejection; the handle's owner closes
    // the handle, and close() waits for this read to finish.
    pending?.catch(() => undefined);
  }
}

/** readHead reads up to `length` bytes from the start of an open file, into `into` if given (of at least `length` bytes). */
export async function readHead(
  handle: ReadHandle,
  length: number,
  signal?: AbortSignal,
  into?: Buffer,
): Promise<Uint8Array> {
  const buffer = into ?? Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await abortable(handle.read(buffer, filled, length - filled, filled), signal);
    if (bytesRead === 0) {
      break;
    }
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
