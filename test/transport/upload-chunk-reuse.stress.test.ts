// Concurrent uploads whose messages are put together in reusable shared memory (grpc-request-body.ts,
// chunk-buffers.ts), alongside reads that take the same memory, and uploads cancelled mid-stream:
// every committed file must hold exactly its own bytes and answer its own sha256.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const sizes = [65_536, 65_540, 100_003, 262_144, 1024 * 1024, 1024 * 1024 + 7];

function header(p: string): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "header", value: { path: p } as never } });
}
function data(bytes: Uint8Array): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

describe("uploads reusing shared chunk memory", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(path.join(server.root, "read.bin"), randomBytes(8 * 1024 * 1024));
  });
  after(() => server.close());

  it("commits each upload's own bytes and sha256 while others read, upload and cancel", async () => {
    const reads = async () => {
      for (let i = 0; i < 6; i++) {
        for await (const _ of server.fileTools.readFile({ path: "read.bin", mode: ReadMode.BYTES })) void _;
      }
    };
    const upload = async (n: number) => {
      const chunks = Array.from({ length: 12 }, (_, i) => randomBytes(sizes[(n + i) % sizes.length]!));
      async function* stream(): AsyncGenerator<UploadFileRequest> {
        yield header(`u/${n}.bin`);
        for (const c of chunks) yield data(c);
      }
      const response = await server.fileTools.uploadFile(stream());
      const whole = Buffer.concat(chunks);
      assert.equal(response.sha256, sha256Hex(whole), `upload ${n}'s answered sha256`);
      assert.ok((await readFile(path.join(server.root, `u/${n}.bin`))).equals(whole), `upload ${n}'s bytes`);
    };
    const cancelled = async (n: number) => {
      const controller = new AbortController();
      async function* stream(): AsyncGenerator<UploadFileRequest> {
        yield header(`c/${n}.bin`);
        for (let i = 0; i < 6; i++) yield data(randomBytes(sizes[i]!));
        controller.abort();
        yield data(randomBytes(1024 * 1024));
      }
      await server.fileTools.uploadFile(stream(), { signal: controller.signal }).catch(() => undefined);
    };
    for (let round = 0; round < 3; round++) {
      await Promise.all([
        reads(),
        reads(),
        ...Array.from({ length: 8 }, (_, n) => upload(round * 10 + n)),
        ...Array.from({ length: 4 }, (_, n) => cancelled(round * 10 + n)),
      ]);
    }
  });
});
