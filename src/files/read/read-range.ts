import type { ReadHandle } from "../../sandbox/sandbox.js";
import { abortable, throwIfAborted } from "./abortable.js";
import { allocateChunk, releaseChunk, settleChunk, trimChunk } from "./chunk-buffers.js";
import type { ReadShare } from "./read-buffer-budget.js";
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
 *
 * With a `share` (read-buffer-budget.ts), each chunk's bytes are taken from it before the chunk
 * is read, and leave it when the chunk is done with (see settleChunk and claimChunk).
 */
export async function* readRange(
  handle: ReadHandle,
  start: number,
  end: number | undefined,
  chunkSize: number,
  signal?: AbortSignal,
  share?: ReadShare,
): AsyncGenerator<Uint8Array, void, undefined> {
  throwIfAborted(signal);
  let position = start;
  const lengthAt = (at: number): number => (end === undefined ? chunkSize : Math.min(chunkSize, end - at));
  // `taken`: the chunk's bytes are already taken from the share (a read-ahead takes them only
  // if they fit at once, so that a read ahead never waits while holding readAheadGate's room).
  const readAt = async (at: number, length: number, taken = false): Promise<Uint8Array> => {
    if (share !== undefined && !taken) {
      await share.take(length, signal);
    }
    // With headroom in front (see chunkHeadroom), so a transport can frame it without a copy.
    const buffer = allocateChunk(length, share);
    try {
      const { bytesRead } = await handle.read(buffer, 0, length, at);
      return trimChunk(buffer, bytesRead);
    } catch (err) {
      releaseChunk(buffer, false);
      throw err;
    }
  };
  const firstLength = lengthAt(position);
  let pending = firstLength > 0 ? readAt(position, firstLength) : undefined;
  // Bytes of `pending` counted in readAheadGate: a read started before the consumer asked for
  // it is held while the consumer waits (e.g. for room on its connection), so across all reads
  // such chunks are bounded; past the bound the next chunk is read only when asked for.
  let ahead = 0;
  let yielded: Uint8Array | undefined;
  try {
    while (pending !== undefined) {
      const chunk = await abortable(pending, signal);
      pending = undefined;
      readAheadGate.give(ahead);
      ahead = 0;
      if (chunk.length === 0) {
        releaseChunk(chunk);
        return;
      }
      position += chunk.length;
      const nextLength = lengthAt(position);
      if (nextLength > 0 && (share === undefined || share.tryTake(nextLength))) {
        if (readAheadGate.tryTake(nextLength)) {
          ahead = nextLength;
          pending = readAt(position, nextLength, true);
        } else {
          share?.give(nextLength);
        }
      }
      yielded = chunk;
      yield chunk;
      // The consumer asks for more: a chunk it did not hand to a transport leaves the share.
      settleChunk(chunk);
      yielded = undefined;
      throwIfAborted(signal);
      if (pending === undefined && nextLength > 0) {
        pending = readAt(position, nextLength);
      }
    }
  } finally {
    if (yielded !== undefined) {
      settleChunk(yielded);
    }
    readAheadGate.give(ahead);
    // An abandoned read-ahead must not become an unhandled rejection; its chunk was never seen,
    // so its memory goes back at once. The handle's owner closes the handle, and close() waits
    // for this read to finish.
    pending?.then(
      (chunk) => releaseChunk(chunk),
      () => undefined,
    );
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
