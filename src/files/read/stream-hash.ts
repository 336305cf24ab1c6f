import { releaseChunk, retainChunk } from "./chunk-buffers.js";
import { OffThreadSha256, readHashFailed } from "./off-thread-hash.js";
import { hashingGate } from "./read-memory-budget.js";

/** maxChunksHashing is how many chunks the hash worker may be behind the stream. */
const maxChunksHashing = 2;

/**
 * StreamHash is the sha256 of a read stream's chunks, computed on the hash worker
 * (off-thread-hash.ts) when `offThread`, overlapped with reading the next chunk and sending this
 * one, or here on the event loop otherwise (small reads, where a message to the worker costs more
 * than hashing).
 *
 * Each chunk handed to the worker is retained until the worker is done with it, takes room in
 * the process-wide hashingGate, and at most maxChunksHashing chunks are outstanding per stream,
 * so a slow worker slows the read instead of holding more and more memory.
 */
export class StreamHash {
  private readonly hash: OffThreadSha256;
  private readonly hashing: Array<Promise<void>> = [];
  private finished = false;

  /** `clientPath` is the path the read names, as the client gave it, for a HASH_FAILED message. */
  constructor(
    offThread: boolean,
    private readonly clientPath: string,
  ) {
    this.hash = new OffThreadSha256(offThread);
  }

  /** update adds a chunk; call settle() after handing the chunk on. */
  async update(chunk: Uint8Array): Promise<void> {
    const room = this.hash.offThread ? chunk.byteLength : 0;
    if (room > 0) {
      await hashingGate.take(room);
    }
    let hashed: Promise<void> | undefined;
    try {
      hashed = this.hash.update(chunk);
    } catch (err) {
      // A lost hash worker (HASH_FAILED): the room taken is given back before the read fails.
      if (room > 0) {
        hashingGate.give(room);
      }
      throw readHashFailed(this.clientPath, err);
    }
    if (hashed !== undefined) {
      retainChunk(chunk);
      this.hashing.push(
        hashed.then(() => {
          releaseChunk(chunk);
          hashingGate.give(room);
        }),
      );
    } else if (room > 0) {
      hashingGate.give(room);
    }
  }

  /** settle waits until at most maxChunksHashing chunks are still being hashed. */
  async settle(): Promise<void> {
    while (this.hashing.length > maxChunksHashing) {
      await this.hashing.shift();
    }
  }

  /** digest returns the lowercase hex sha256 of every chunk passed to update. */
  async digest(): Promise<string> {
    this.finished = true;
    return this.hash.digest().catch((err: unknown) => {
      throw readHashFailed(this.clientPath, err);
    });
  }

  /** discard forgets an unfinished hash (a stream that failed or was cancelled); no-op after digest. */
  discard(): void {
    if (!this.finished) {
      this.hash.discard();
    }
  }
}
