import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { sha256 } from "../files/read-helpers.js";

let server: TestServer;
const content = randomBytes(3 * 1024 * 1024 + 4321);

before(async () => {
  server = await startTestServer();
  await writeFile(path.join(server.root, "blob.bin"), content);
});

after(async () => {
  await server.close();
});

describe("pre-framed streamed responses", () => {
  it("sends ReadFile chunks as frames built in place, byte for byte, with the sha256 of what was sent", async () => {
    for (const chunkSize of [4096, 65536, 1024 * 1024]) {
      const data: Uint8Array[] = [];
      let summarySha = "";
      for await (const message of server.fileTools.readFile({ path: "blob.bin", mode: ReadMode.BYTES, chunkSize })) {
        if (message.part.case === "data") data.push(message.part.value);
        if (message.part.case === "summary") summarySha = message.part.value.sha256;
      }
      const received = Buffer.concat(data);
      assert.equal(received.byteLength, content.byteLength);
      assert.ok(received.equals(content), `chunk size ${chunkSize}: bytes differ`);
      assert.equal(summarySha, sha256(content));
    }
  });

  it("keeps concurrent reads of different files apart when chunk buffers are reused", async () => {
    const other = randomBytes(2 * 1024 * 1024 + 17);
    await writeFile(path.join(server.root, "other.bin"), other);
    const readAll = async (name: string) => {
      const data: Uint8Array[] = [];
      for await (const message of server.fileTools.readFile({ path: name, mode: ReadMode.BYTES, chunkSize: 65536 })) {
        if (message.part.case === "data") data.push(message.part.value);
      }
      return Buffer.concat(data);
    };
    const results = await Promise.all([
      readAll("blob.bin"),
      readAll("other.bin"),
      readAll("blob.bin"),
      readAll("other.bin"),
    ]);
    assert.ok(results[0]?.equals(content) && results[2]?.equals(content));
    assert.ok(results[1]?.equals(other) && results[3]?.equals(other));
  });
});
