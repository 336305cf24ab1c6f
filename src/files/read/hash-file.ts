import { createHash } from "node:crypto";
import type { ReadHandle } from "../../sandbox/sandbox.js";
import { releaseChunk } from "./chunk-buffers.js";
import { readRange } from "./read-range.js";

/** hashChunkSize is large because hashing is CPU-bound and benefits from few, big reads. */
const hashChunkSize = 1024 * 1024;

/**
 * sha256OfHandle returns the lowercase hex SHA-256 of an open file's whole content, read in
 * bounded memory (two 1 MiB chunks) and stopping at once when `signal` aborts.
 */
export async function sha256OfHandle(handle: ReadHandle, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of readRange(handle, 0, undefined, hashChunkSize, signal)) {
    hash.update(chunk);
    releaseChunk(chunk);
  }
  return hash.digest("hex");
}
