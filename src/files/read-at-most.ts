import type { ReadHandle } from "../sandbox/sandbox.js";

/**
 * readAtMost reads an open file from its start up to `limit` bytes, and tells whether there was
 * more. A size checked by stat beforehand is no bound on what a read to the end returns: the file
 * may grow in between (another writer, or anyone who can write in the root), so every read whose
 * size is bounded stops at the bound itself. `sizeHint` (the stat's size) sizes the first buffer;
 * memory grows with what is actually read, never to `limit` up front.
 */
export async function readAtMost(
  handle: Pick<ReadHandle, "read">,
  limit: number,
  sizeHint = 0,
): Promise<{ content: Buffer; more: boolean }> {
  const parts: Buffer[] = [];
  let total = 0;
  let chunk = Math.min(limit + 1, Math.max(sizeHint + 1, 64 * 1024));
  while (total <= limit) {
    const buffer = Buffer.allocUnsafe(Math.min(chunk, limit + 1 - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    parts.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    chunk = Math.min(chunk * 2, 16 * 1024 * 1024);
  }
  const content = Buffer.concat(parts, Math.min(total, limit));
  return { content, more: total > limit };
}
