import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { request } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { frame } from "../support/raw-grpc.js";

/** post sends a Connect streaming request body to the HTTP listener and returns status and body. */
async function post(
  address: string,
  path: string,
  body: Buffer,
): Promise<{ status: number | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `http://${address}${path}`,
      { method: "POST", headers: { "content-type": "application/connect+proto", "connect-protocol-version": "1" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("latin1") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const message = (part: Parameters<typeof create<typeof UploadFileRequestSchema>>[1]) =>
  frame(toBinary(UploadFileRequestSchema, create(UploadFileRequestSchema, part)));

describe("UploadFile over the HTTP (connect-node) listener", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ http: true });
  });
  after(() => server.close());

  it("reports the sha256 of every byte when a large chunk shares its request buffer with the next small one", async () => {
    await writeFile(join(server.root, "t.bin"), "original\n");
    const big = Buffer.alloc(100 * 1024, 97);
    const small = Buffer.from("tail bytes\n");
    // One body: connect-node cuts every message out of the same buffer, so the large chunk's
    // ArrayBuffer also holds the header and the small chunk (within the 64-byte slack).
    const body = Buffer.concat([
      message({ part: { case: "header", value: { path: "t.bin" } } }),
      message({ part: { case: "data", value: big } }),
      message({ part: { case: "data", value: small } }),
    ]);
    const answer = await post(server.httpAddress!, "/toolhost.files.v1.FileTools/UploadFile", body);
    const expected = Buffer.concat([big, small]);
    assert.deepEqual(await readFile(join(server.root, "t.bin")), expected);
    const sha256 = createHash("sha256").update(expected).digest("hex");
    assert.equal(answer.status, 200, answer.text);
    assert.ok(
      answer.text.includes(sha256),
      `the answer's sha256 is not that of the ${expected.length} bytes written: ${JSON.stringify(answer.text.slice(0, 300))}`,
    );
  });
});
