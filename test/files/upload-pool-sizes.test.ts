// Uploads give their messages' shared memory back to chunk-buffers.ts' pool (releaseChunkMemory).
// Messages come in whatever sizes clients choose, sizes a read never asks for: those buffers must
// not take the whole pool for good, or every read afterwards maps fresh memory for each chunk
// again (issue 31).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { allocateChunk, releaseChunk } from "../../src/files/read/chunk-buffers.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/**
 * readChunksReused is how many of a burst of 16 read chunks (16 MiB, half the pool) released
 * together are handed out again from the pool.
 */
function readChunksReused(): number {
  const first = Array.from({ length: 16 }, () => allocateChunk(1 << 20));
  first.forEach((chunk) => releaseChunk(chunk));
  const second = Array.from({ length: 16 }, () => allocateChunk(1 << 20));
  second.forEach((chunk) => releaseChunk(chunk));
  const memory = new Set(first.map((chunk) => chunk.buffer));
  return second.filter((chunk) => memory.has(chunk.buffer)).length;
}

describe("the chunk pool after uploads of odd-sized messages", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("still reuses a read chunk's memory", async () => {
    await Promise.all(
      Array.from({ length: 16 }, async (_, n) => {
        async function* stream(): AsyncGenerator<UploadFileRequest> {
          yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: `u${n}.bin` } as never } });
          for (let i = 0; i < 16; i++) {
            yield create(UploadFileRequestSchema, { part: { case: "data", value: randomBytes((1 << 20) + n * 100) } });
          }
        }
        await server.fileTools.uploadFile(stream());
      }),
    );
    assert.equal(readChunksReused(), 16, "after uploads of 1 MiB and a few bytes per message");
  });
});
