import type { FileHandle } from "node:fs/promises";
import { createSha256 } from "../content-hash.js";
import type { AtomicFsOps } from "./fs-ops.js";

/** WrittenContent describes the bytes staged in the temporary file. */
export interface WrittenContent {
  readonly size: number;
  readonly sha256: string;
}

/**
 * writeAll writes every chunk of `source` into the temporary file, hashing as it goes, and stops
 * at the first chunk after `signal` aborts.
 */
export async function writeAll(
  ops: AtomicFsOps,
  handle: FileHandle,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  signal: AbortSignal | undefined,
): Promise<WrittenContent> {
  const hash = createSha256();
  let size = 0;
  const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
  for await (const chunk of chunks) {
    signal?.throwIfAborted();
    const written = writeFully(ops, handle, chunk, size);
    // Hash on this thread while the thread pool writes: both only read the chunk.
    hash.update(chunk);
    await written;
    size += chunk.byteLength;
  }
  signal?.throwIfAborted();
  return { size, sha256: hash.digest("hex") };
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
