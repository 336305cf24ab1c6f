// Uploads cut inside a message put together in shared chunk memory (64 KiB and more,
// grpc-request-body.ts): half-closed there, or reset there, commits nothing.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { constants } from "node:http2";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { collect, frame, RawGrpcConnection } from "../support/raw-grpc.js";
import { waitFor } from "../support/wait-for.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const upload = "/toolhost.files.v1.FileTools/UploadFile";

function uploadBody(path: string, chunks: Buffer[]): Buffer {
  const header = toBinary(
    UploadFileRequestSchema,
    create(UploadFileRequestSchema, { part: { case: "header", value: { path } } }),
  );
  const data = chunks.map((c) =>
    frame(toBinary(UploadFileRequestSchema, create(UploadFileRequestSchema, { part: { case: "data", value: c } }))),
  );
  return Buffer.concat([frame(header), ...data]);
}

/** unwound waits until no temporary file is left beside the target: the upload is over. */
async function unwound(root: string): Promise<void> {
  await waitFor("the upload's temporary file to go", async () =>
    (await readdir(root)).every((n) => !isTempFileName(n)),
  );
}

describe("an upload cut inside a pooled message", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  for (const messages of [1, 3]) {
    it(`half-closed inside message ${messages + 1} (1 MiB messages): INVALID_ARGUMENT, nothing committed`, async () => {
      await writeFile(join(server.root, "t.bin"), "original");
      const body = uploadBody(
        "t.bin",
        Array.from({ length: messages + 1 }, () => randomBytes(1024 * 1024)),
      );
      const c = await RawGrpcConnection.open(server.address);
      try {
        const r = await c.call(upload, body.subarray(0, body.length - 1000));
        assert.equal(r.grpcStatus, 3);
        await unwound(server.root);
        assert.equal(await readFile(join(server.root, "t.bin"), "utf8"), "original");
        assert.deepEqual(await readdir(server.root), ["t.bin"]);
      } finally {
        c.close();
      }
    });

    it(`reset inside message ${messages + 1}: nothing committed`, async () => {
      await writeFile(join(server.root, "t.bin"), "original");
      const body = uploadBody(
        "t.bin",
        Array.from({ length: messages + 1 }, () => randomBytes(1024 * 1024)),
      );
      const c = await RawGrpcConnection.open(server.address);
      try {
        const stream = c.start(upload);
        stream.write(body.subarray(0, body.length - 1000));
        // Reset only once the server is provably mid-write: its temporary file exists.
        await waitFor("the upload's temporary file", async () => (await readdir(server.root)).some(isTempFileName));
        stream.close(constants.NGHTTP2_CANCEL);
        await collect(stream);
        await unwound(server.root);
        assert.equal(await readFile(join(server.root, "t.bin"), "utf8"), "original");
        assert.deepEqual(await readdir(server.root), ["t.bin"]);
      } finally {
        c.close();
      }
    });
  }

  it("the same body half-closed is committed", async () => {
    const chunks = Array.from({ length: 4 }, () => randomBytes(1024 * 1024 + 3));
    const c = await RawGrpcConnection.open(server.address);
    try {
      const r = await c.call(upload, uploadBody("t.bin", chunks));
      assert.equal(r.grpcStatus, 0, r.grpcMessage);
      assert.ok((await readFile(join(server.root, "t.bin"))).equals(Buffer.concat(chunks)));
    } finally {
      c.close();
    }
  });
});
