// Many concurrent ReadFiles of distinct files over the node:http2 host, whose chunks are framed in
// place, claimed by the writer and reused once on the socket (chunk-buffers.ts, bounded-writer.ts),
// with random cancellations, slow readers and uploads churning the same pool: every read that
// finishes must get exactly its file's bytes and sha256, and every read's share of the read-buffer
// budget must come back.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { readBufferBudget } from "../../src/files/read/read-memory-budget.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const files = 24;
const chunkSize = 256 * 1024;

describe("concurrent ReadFiles with cancellations over the node:http2 host", () => {
  let server: TestServer;
  const contents: Buffer[] = [];
  before(async () => {
    server = await startTestServer();
    for (let i = 0; i < files; i++) {
      const content = randomBytes(chunkSize * (3 + (i % 7)) + i * 1013);
      contents.push(content);
      await writeFile(path.join(server.root, `f${i}.bin`), content);
    }
  });
  after(() => server.close());

  it("gives each read its own bytes and sha256, and every share back", async () => {
    const read = async (i: number) => {
      const content = contents[i]!;
      const controller = new AbortController();
      const cancelAfter = Math.random() < 0.3 ? 1 + Math.floor(Math.random() * 4) : -1;
      const slow = Math.random() < 0.3;
      const got: Buffer[] = [];
      let sha256: string | undefined;
      let chunks = 0;
      try {
        for await (const response of server.fileTools.readFile(
          { path: `f${i}.bin`, mode: ReadMode.BYTES, chunkSize },
          { signal: controller.signal },
        )) {
          const part = response.part;
          if (part.case === "data") {
            got.push(Buffer.from(part.value));
            if (++chunks === cancelAfter) controller.abort();
            if (slow) await sleep(Math.floor(Math.random() * 5));
          } else if (part.case === "summary") {
            sha256 = part.value.sha256;
          }
        }
      } catch (err) {
        assert.ok(controller.signal.aborted, `f${i}: only a cancelled read fails: ${String(err)}`);
      }
      const bytes = Buffer.concat(got);
      assert.ok(content.subarray(0, bytes.length).equals(bytes), `f${i}: every byte received is the file's`);
      if (!controller.signal.aborted) {
        assert.equal(bytes.length, content.length, `f${i}: all bytes`);
        assert.equal(sha256, createHash("sha256").update(content).digest("hex"), `f${i}: sha256`);
      }
    };
    const upload = async (n: number) => {
      async function* stream(): AsyncGenerator<UploadFileRequest> {
        yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: `u/${n}.bin` } as never } });
        for (let i = 0; i < 6; i++) {
          yield create(UploadFileRequestSchema, { part: { case: "data", value: randomBytes(65_600 + i * 3001) } });
        }
      }
      await server.fileTools.uploadFile(stream());
    };
    for (let round = 0; round < 3; round++) {
      await Promise.all([
        ...Array.from({ length: files }, (_, i) => read(i)),
        ...Array.from({ length: 4 }, (_, n) => upload(round * 10 + n)),
      ]);
      // Cancelled calls end on the server a little after the client sees them end.
      for (let wait = 0; wait < 200 && (readBufferBudget.heldBytes !== 0 || readBufferBudget.openReads !== 0); wait++) {
        await sleep(10);
      }
      assert.equal(readBufferBudget.openReads, 0, "every read closed its share");
      assert.equal(readBufferBudget.heldBytes, 0, "every chunk's bytes were given back");
    }
  });
});
