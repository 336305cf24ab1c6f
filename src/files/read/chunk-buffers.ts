import type { ReadShare } from "./read-buffer-budget.js";

/**
 * chunkHeadroom is how many spare bytes every file chunk read by readRange carries in front of
 * its data, so that a transport can write its own headers there and send header and data as one
 * buffer (a protobuf field header is at most 6 bytes, a gRPC message prefix 5).
 */
export const chunkHeadroom = 16;

/**
 * ChunkSlot is a chunk's backing memory (the whole buffer, headroom included), its holders, and
 * the read share its bytes were taken from while that share still counts them.
 */
interface ChunkSlot {
  readonly buffer: Buffer;
  holders: number;
  /** The share that counts this chunk's `length` bytes (read-buffer-budget.ts), until they are given back. */
  share: ReadShare | undefined;
  readonly length: number;
  /** Set by claimChunk: a transport holds the chunk and releases it once it is on the socket. */
  claimed: boolean;
  /** Cleared when a holder let go without knowing the memory is free (a failed write). */
  reusable: boolean;
}

/** slots maps each chunk view handed out to its backing memory; only these have headroom. */
const slots = new WeakMap<Uint8Array, ChunkSlot>();

/** memorySlots maps the shared memory of each chunk handed out to its slot (releaseChunkMemory). */
const memorySlots = new WeakMap<ArrayBufferLike, ChunkSlot>();

/**
 * freeBuffers keeps released buffers by size, at most maxFreeBytes in all, so that a long read
 * reuses its memory instead of mapping fresh pages for every chunk.
 *
 * The bound is as large as what concurrent reads hold at once (the process's read-ahead and
 * hashing gates and a connection's send budget, read-memory-budget.ts): chunks come back in
 * bursts (one socket write completes many DATA frames), and a smaller pool dropped the burst's
 * excess only for the next reads to allocate afresh, leaving SharedArrayBuffers for the
 * collector at every turn (16 concurrent 256 MiB reads: ArrayBuffers from 16 to ~96 MiB with 16,
 * flat at ~48 with 32; issue 31).
 */
const freeBuffers = new Map<number, Buffer[]>();
export const maxFreeBytes = 32 * 1024 * 1024;
let freeBytes = 0;

/**
 * allocateChunk returns a buffer of `length` bytes (the view data is read into) with
 * chunkHeadroom spare bytes in front of it, reusing a released buffer of the same size when one
 * is free.
 *
 * Fresh 1 MiB buffers for every chunk of a 256 MiB read cost tens of thousands of page faults
 * (each is a new mapping the kernel zero-fills); reused ones are already mapped.
 */
export function allocateChunk(length: number, share?: ReadShare): Buffer {
  // `share`: the read whose budget already counts these `length` bytes (readRange takes them).
  const size = chunkHeadroom + length;
  const free = freeBuffers.get(size);
  const reused = free?.pop();
  if (reused !== undefined) {
    freeBytes -= size;
    if (free?.length === 0) {
      freeBuffers.delete(size);
    }
  }
  // Shared memory, so that a hash worker (off-thread-hash.ts) can read the chunk in place.
  const buffer = reused ?? Buffer.from(new SharedArrayBuffer(size));
  const view = buffer.subarray(chunkHeadroom);
  const slot: ChunkSlot = { buffer, holders: 1, share, length, claimed: false, reusable: true };
  slots.set(view, slot);
  memorySlots.set(buffer.buffer, slot);
  return view;
}

/**
 * claimChunk marks a chunk from allocateChunk as held by a transport that releases it once its
 * bytes are on the socket (BoundedWriter): its bytes stay counted in its read's share until then.
 */
export function claimChunk(view: Uint8Array): void {
  const slot = slots.get(view);
  if (slot !== undefined) {
    slot.claimed = true;
  }
}

/**
 * settleChunk is called by the read that yielded `view` once its consumer asks for more: a
 * chunk no transport claimed is the consumer's to keep (a copy made, or bytes collected), so
 * its bytes leave the read's share now; its memory is reused only if the consumer releases it.
 */
export function settleChunk(view: Uint8Array): void {
  const slot = slots.get(view);
  if (slot !== undefined && !slot.claimed) {
    giveBack(slot);
  }
}

function giveBack(slot: ChunkSlot): void {
  const share = slot.share;
  if (share !== undefined) {
    slot.share = undefined;
    share.give(slot.length);
  }
}

/**
 * trimChunk narrows a chunk from allocateChunk to its first `length` bytes (a short read),
 * keeping its headroom and its slot.
 */
export function trimChunk(view: Buffer, length: number): Buffer {
  if (length === view.byteLength) {
    return view;
  }
  const slot = slots.get(view);
  const trimmed = view.subarray(0, length);
  if (slot !== undefined) {
    slots.set(trimmed, slot);
  }
  return trimmed;
}

/**
 * headroomOf is how many bytes in front of `view` its holder may overwrite: chunkHeadroom for a
 * chunk from allocateChunk, 0 for any other array (whose neighbouring bytes may belong to anyone).
 */
export function headroomOf(view: Uint8Array): number {
  return slots.has(view) ? chunkHeadroom : 0;
}

/**
 * retainChunk adds a holder to a chunk from allocateChunk (e.g. a hash worker still reading it),
 * so that its memory is reused only once every holder has released it.
 */
export function retainChunk(view: Uint8Array): void {
  const slot = slots.get(view);
  if (slot !== undefined) {
    slot.holders++;
  }
}

/**
 * releaseChunk drops one holder of a chunk; when none is left its bytes leave its read's share
 * and its memory goes back for reuse (not with `reuse` false: a holder unsure the memory is free).
 * The consumer that got the chunk from readRange holds it (the transport releases it once the
 * bytes are on the socket); a chunk never released is simply garbage-collected.
 */
export function releaseChunk(view: Uint8Array, reuse = true): void {
  const slot = slots.get(view);
  if (slot !== undefined && !reuse && slot.holders > 0) {
    // A write that failed may leave the memory referenced below the stream: count it as done,
    // but never hand it out again.
    slot.reusable = false;
  }
  if (slot !== undefined && release(slot)) {
    slots.delete(view);
  }
}

/**
 * releaseChunkMemory is releaseChunk for any view into a chunk's memory (a bytes field decoded
 * from a request message put together in a chunk): a no-op for other memory.
 */
export function releaseChunkMemory(view: Uint8Array): void {
  const slot = memorySlots.get(view.buffer);
  if (slot !== undefined) {
    release(slot);
  }
}

/**
 * release drops one holder of `slot`, keeping its memory for reuse when none is left; whether it
 * was the last. Room is made by dropping the free buffers of the sizes released longest ago
 * (freeBuffers is kept in that order): an upload's messages come in whatever sizes its client
 * chose, sizes a read never asks for, and such buffers kept for good filled the pool, so that
 * every read after them mapped fresh memory for each chunk again.
 */
function release(slot: ChunkSlot): boolean {
  if (slot.holders <= 0 || --slot.holders > 0) {
    return false;
  }
  giveBack(slot);
  if (!slot.reusable) {
    return true;
  }
  const size = slot.buffer.byteLength;
  if (size > maxFreeBytes) {
    return true;
  }
  for (const [other, buffers] of freeBuffers) {
    if (freeBytes + size <= maxFreeBytes) {
      break;
    }
    if (other === size) {
      continue;
    }
    while (buffers.length > 0 && freeBytes + size > maxFreeBytes) {
      buffers.pop();
      freeBytes -= other;
    }
    if (buffers.length === 0) {
      freeBuffers.delete(other);
    }
  }
  if (freeBytes + size > maxFreeBytes) {
    return true;
  }
  const free = freeBuffers.get(size) ?? [];
  // Last in freeBuffers' order: the size released most recently.
  freeBuffers.delete(size);
  freeBuffers.set(size, free);
  free.push(slot.buffer);
  freeBytes += size;
  return true;
}
