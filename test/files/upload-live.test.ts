import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import {
  UploadFileRequestSchema,
  type UploadFileRequest,
  type UploadHeader,
} from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { eventually, failureOf, snapshot } from "./write-fixtures.js";

function header(value: Partial<UploadHeader> & { path: string }): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "header", value: value as UploadHeader } });
}

function data(bytes: Uint8Array): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

async function* messages(...items: UploadFileRequest[]): AsyncGenerator<UploadFileRequest> {
  yield* items;
}

describe("UploadFile over gRPC", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it("commits the chunks when the client half-closes", async () => {
    const chunk = Buffer.alloc(1024 * 1024, "u");
    const response = await server.fileTools.uploadFile(
      messages(
        header({ path: "up/big.bin", expectedSize: BigInt(3 * chunk.length) }),
        data(chunk),
        data(chunk),
        data(chunk),
      ),
    );
    assert.equal(response.created, true);
    assert.equal(response.size, BigInt(3 * chunk.length));
    assert.equal(response.sha256, sha256Hex(Buffer.concat([chunk, chunk, chunk])));
    assert.equal((await readFile(path.join(server.root, "up/big.bin"))).length, 3 * chunk.length);
  });

  it("a cancel mid-stream leaves the target untouched and no temporary file", async () => {
    await writeFile(path.join(server.root, "cancel.bin"), "old content");
    const before = await snapshot(server.root);
    const controller = new AbortController();
    const aborted = new Promise((resolve) => controller.signal.addEventListener("abort", resolve));
    async function* stream(): AsyncGenerator<UploadFileRequest> {
      yield header({ path: "cancel.bin" });
      yield data(Buffer.alloc(64 * 1024, "n"));
      await aborted;
    }
    const call = server.fileTools.uploadFile(stream(), { signal: controller.signal });
    // Cancel only once the server is provably mid-write: its temporary file exists.
    await eventually(async () => assert.equal((await readdir(server.root)).filter(isTempFileName).length, 1));
    controller.abort();
    assert.equal((await failureOf(call)).code, Code.Canceled);
    await eventually(async () => assert.deepEqual(await snapshot(server.root), before));
  });

  it("an expected_size mismatch changes nothing", async () => {
    await writeFile(path.join(server.root, "sized.bin"), "old");
    const before = await snapshot(server.root);
    const failure = await failureOf(
      server.fileTools.uploadFile(messages(header({ path: "sized.bin", expectedSize: 5n }), data(Buffer.from("abc")))),
    );
    assert.deepEqual(
      { code: failure.code, reason: failure.reason },
      { code: Code.InvalidArgument, reason: "UPLOAD_MISMATCH" },
    );
    assert.equal(
      failure.message,
      "Upload of 'sized.bin' does not match its header: expected_size is 5 bytes but 3 bytes were received; nothing was changed. Resend the file.",
    );
    assert.deepEqual(await snapshot(server.root), before);
  });

  it("an expected_sha256 mismatch changes nothing", async () => {
    await writeFile(path.join(server.root, "hashed.bin"), "old");
    const before = await snapshot(server.root);
    const failure = await failureOf(
      server.fileTools.uploadFile(
        messages(header({ path: "hashed.bin", expectedSha256: sha256Hex("something else") }), data(Buffer.from("abc"))),
      ),
    );
    assert.deepEqual(
      { code: failure.code, reason: failure.reason },
      { code: Code.InvalidArgument, reason: "UPLOAD_MISMATCH" },
    );
    assert.ok(
      failure.message.includes(sha256Hex("something else")) && failure.message.includes(sha256Hex("abc")),
      failure.message,
    );
    assert.deepEqual(await snapshot(server.root), before);
  });

  it("refuses a stream that does not start with a header, or has two", async () => {
    const before = await snapshot(server.root);
    const noHeader = await failureOf(server.fileTools.uploadFile(messages(data(Buffer.from("abc")))));
    assert.deepEqual(
      { code: noHeader.code, reason: noHeader.reason },
      { code: Code.InvalidArgument, reason: "INVALID_ARGUMENT" },
    );
    assert.equal(
      noHeader.message,
      "The first UploadFile message must be a header naming the path; send {header:{path:...}} before any data.",
    );
    const empty = await failureOf(server.fileTools.uploadFile(messages()));
    assert.equal(empty.reason, "INVALID_ARGUMENT");
    const twoHeaders = await failureOf(
      server.fileTools.uploadFile(
        messages(header({ path: "two.bin" }), data(Buffer.from("a")), header({ path: "other.bin" })),
      ),
    );
    assert.equal(twoHeaders.message, "UploadFile got a second header; send one header, then only data messages.");
    assert.deepEqual(await snapshot(server.root), before);
  });
});
