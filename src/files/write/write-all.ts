import { maxSyncWriteBytes } from "../../sandbox/sync-io-policy.js";
import { sha256Hex } from "../content-hash.js";
import { allocateChunk, releaseChunk, releaseChunkMemory } from "../read/chunk-buffers.js";
import { isHandedOver, OffThreadSha256 } from "../read/off-thread-hash.js";
import type { AtomicFsOps } from "./fs-ops.js";
import type { StagedFile } from "./staged-descriptor.js";

/** WrittenContent describes the bytes staged in the temporary file. */
export interface WrittenContent {
  readonly size: number;
  readonly sha256: string;
}

/** offThreadMinChunk is the chunk size from which the sha256 moves to the hash worker. */
const offThreadMinChunk = 64 * 1024;

/** maxChunksHashing is how many chunks the hash worker may be behind the writes. */
const maxChunksHashing = 2;

/**
 * maxBytesWriting is how many bytes of chunks may be in write(2) at once (at least one chunk
 * always is): enough that the next message is taken in while the disk writes the last ones, so
 * disk and network overlap instead of taking turns, and small enough that a slow disk holds at
 * most this much of a call's memory before the request stream stops reading.
 */
const maxBytesWriting = 4 * 1024 * 1024;

/** Writing is one chunk whose write(2) calls are under way. */
interface Writing {
  readonly chunk: Uint8Array;
  readonly written: Promise<void>;
}

/**
 * writeAll writes every chunk of `source` into the temporary file, hashing as it goes, and stops
 * at the first chunk after `signal` aborts.
 *
 * `local` says the temporary file's folder is on a local filesystem (TargetDirectory.local): whole
 * content given as one buffer is then written with write(2) on this thread when small enough
 * (see maxSyncWriteBytes); streamed chunks always go through the thread pool.
 *
 * Each chunk is written at its own offset as soon as it arrives, up to maxBytesWriting at once,
 * and hashed, in order, once its write is done. Chunks of 64 KiB and more are hashed on the hash
 * worker (off-thread-hash.ts): a chunk its producer handed over (handOver) is read there in place
 * when in shared memory, and given back for reuse after, or else moved there without a copy; any
 * other is copied into shared memory first. Hashing on this thread was over half of
 * the event loop's busy time for an upload and kept grpc-js from taking in the next message.
 */
export async function writeAll(
  ops: AtomicFsOps,
  handle: StagedFile,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  signal: AbortSignal | undefined,
  local = false,
): Promise<WrittenContent> {
  if (writesInPlace(source, local)) {
    // One small buffer (an edit's, a WriteFile's): written on this thread and hashed here, as
    // the general path below would (chunks under offThreadMinChunk are hashed on this thread),
    // without its queues, async iteration and hash object.
    signal?.throwIfAborted();
    await writeFully(ops, handle, source, 0, true);
    signal?.throwIfAborted();
    return { size: source.byteLength, sha256: sha256Hex(source) };
  }
  // Only whole content given at once is written on this thread (see maxSyncWriteBytes).
  const inPlace = local && source instanceof Uint8Array;
  const hash = new OffThreadSha256();
  const hashing: Array<Promise<void>> = [];
  const writing: Writing[] = [];
  let bytesWriting = 0;
  let size = 0;
  let finished = false;
  const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
  /** settleOldest waits for the oldest write, then hashes its chunk (so hashes stay in order). */
  const settleOldest = async () => {
    const oldest = writing.shift()!;
    bytesWriting -= oldest.chunk.byteLength;
    await oldest.written;
    hashChunk(hash, oldest.chunk, hashing);
    while (hashing.length > maxChunksHashing) {
      await hashing.shift();
    }
  };
  try {
    for await (const chunk of chunks) {
      signal?.throwIfAborted();
      while (writing.length > 0 && bytesWriting + chunk.byteLength > maxBytesWriting) {
        await settleOldest();
      }
      const written = writeFully(ops, handle, chunk, size, inPlace);
      // Handled here and awaited in order later: a failure must not be an unhandled rejection.
      written.catch(() => undefined);
      writing.push({ chunk, written });
      bytesWriting += chunk.byteLength;
      size += chunk.byteLength;
    }
    while (writing.length > 0) {
      await settleOldest();
    }
    signal?.throwIfAborted();
    finished = true;
  } finally {
    if (!finished) {
      // No write may still be running once the caller closes the file (a reused descriptor).
      await Promise.allSettled(writing.map((w) => w.written));
      hash.discard();
    }
  }
  await Promise.all(hashing);
  return { size, sha256: await hash.digest() };
}

/**
 * writesInPlace tells whether writeAll writes `source` with write(2) on the calling thread, in
 * one turn of the event loop: one buffer of at most maxSyncWriteBytes, into a local folder.
 */
export function writesInPlace(source: Uint8Array | AsyncIterable<Uint8Array>, local: boolean): source is Uint8Array {
  return local && source instanceof Uint8Array && source.byteLength <= maxSyncWriteBytes;
}

/** hashChunk adds one written chunk to `hash`, queueing the worker's acknowledgement on `hashing`. */
function hashChunk(hash: OffThreadSha256, chunk: Uint8Array, hashing: Array<Promise<void>>): void {
  if (chunk.byteLength < offThreadMinChunk) {
    hash.update(chunk);
    return;
  }
  if (isHandedOver(chunk)) {
    // Given up by its producer: hashed in place if shared (then its memory goes back for reuse
    // when it came from chunk-buffers.ts), else moved to the worker.
    const shared = chunk.buffer instanceof SharedArrayBuffer;
    const hashed = hash.update(chunk, !shared);
    if (hashed === undefined) {
      if (shared) releaseChunkMemory(chunk);
    } else {
      hashing.push(shared ? hashed.then(() => releaseChunkMemory(chunk)) : hashed);
    }
    return;
  }
  const shared = allocateChunk(chunk.byteLength);
  shared.set(chunk);
  const hashed = hash.update(shared);
  hashing.push(hashed === undefined ? Promise.resolve() : hashed.then(() => releaseChunk(shared)));
}

/** writeFully writes all of `chunk` at `position`: write(2) may write less than asked. */
async function writeFully(
  ops: AtomicFsOps,
  handle: StagedFile,
  chunk: Uint8Array,
  position: number,
  inPlace: boolean,
): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength; ) {
    const n = await ops.write(handle, chunk, offset, chunk.byteLength - offset, position + offset, inPlace);
    if (n <= 0) {
      throw Object.assign(new Error("write(2) wrote no bytes"), { code: "EIO" });
    }
    offset += n;
  }
}
