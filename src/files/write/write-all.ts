import type { FileHandle } from "node:fs/promises";
import { allocateChunk, releaseChunk } from "../read/chunk-buffers.js";
import { OffThreadSha256 } from "../read/off-thread-hash.js";
import type { AtomicFsOps } from "./fs-ops.js";

/** WrittenContent describes the bytes staged in the temporary file. */
export interface WrittenContent {
  readonly size: number;
  readonly sha256: string;
}

/** offThreadMinChunk is the chunk size from which the sha256 moves to the hash worker. */
const offThreadMinChunk = 64 * 1024;

/** maxChunksHashing is how many chunk copies the hash worker may be behind the writes. */
const maxChunksHashing = 2;

/**
 * writeAll writes every chunk of `source` into the temporary file, hashing as it goes, and stops
 * at the first chunk after `signal` aborts.
 *
 * Chunks of 64 KiB and more are hashed on the hash worker (off-thread-hash.ts) from a copy in
 * shared memory: the copy costs a tenth of hashing on this thread, which, for an upload, was over
 * half of the event loop's busy time and kept grpc-js from taking in the next message.
 */
export async function writeAll(
  ops: AtomicFsOps,
  handle: FileHandle,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  signal: AbortSignal | undefined,
): Promise<WrittenContent> {
  const hash = new OffThreadSha256();
  const hashing: Array<Promise<void>> = [];
  let size = 0;
  let finished = false;
  const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
  try {
    for await (const chunk of chunks) {
      signal?.throwIfAborted();
      const written = writeFully(ops, handle, chunk, size);
      if (chunk.byteLength >= offThreadMinChunk) {
        const shared = allocateChunk(chunk.byteLength);
        shared.set(chunk);
        const hashed = hash.update(shared);
        hashing.push(hashed === undefined ? Promise.resolve() : hashed.then(() => releaseChunk(shared)));
      } else {
        hash.update(chunk);
      }
      await written;
      size += chunk.byteLength;
      while (hashing.length > maxChunksHashing) {
        await hashing.shift();
      }
    }
    signal?.throwIfAborted();
    finished = true;
  } finally {
    if (!finished) {
      hash.discard();
    }
  }
  return { size, sha256: await hash.digest() };
}

/** writeFully writes all of `chunk` at `position`: write(2) may write less than asked. */
async function writeFully(ops: AtomicFsOps, handle: FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength; ) {
    const n = await ops.write(handle, chunk, offset, chunk.byteLength - offset, position + offset);
    if (n <= 0) {
      throw Object.assign(new Error("write(2) wrote no bytes"), { code: "EIO" });
    }
    offset += n;
  }
}
