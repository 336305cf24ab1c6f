import assert from "node:assert/strict";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { OffThreadSha256, stopHashWorkerForTests } from "../../src/files/read/off-thread-hash.js";
import { commitWrite } from "../../src/files/write/commit-write.js";
import { parsePreconditions } from "../../src/files/write/preconditions.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { eventually, failureOf, snapshot, writeFixture } from "./write-fixtures.js";

const mib = 1024 * 1024;

function chunkOf(i: number): Buffer {
  return Buffer.alloc(mib, `chunk ${i};`);
}

function header(p: string): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "header", value: { path: p } } });
}

function data(bytes: Uint8Array): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

/** tempFileSize is the size of the one temporary file in `dir`, or 0 while there is none. */
async function tempFileSize(dir: string): Promise<number> {
  const temps = (await readdir(dir)).filter(isTempFileName);
  return temps.length === 1 ? (await stat(path.join(dir, temps[0]!))).size : 0;
}

// The sha256 of an upload is computed on the hash worker; if that thread dies mid-upload, its
// state is gone: the upload must fail (and change nothing), not continue on a new worker and
// report the sha256 of only the later bytes.
describe("the hash worker stops mid-upload", { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it("fails that upload with INTERNAL HASH_FAILED, leaves the target untouched, and the next upload is hashed right", async () => {
    await writeFile(path.join(server.root, "crash.bin"), "old content");
    const before = await snapshot(server.root);
    let lost = -1;
    async function* crashing(): AsyncGenerator<UploadFileRequest> {
      yield header("crash.bin");
      for (let i = 0; i < 8; i++) yield data(chunkOf(i));
      // The server hashes chunk 1 once chunk 5 is being written (4 MiB of writes in flight):
      // with 5 MiB in the temporary file, the upload's hash is on the worker.
      await eventually(async () => assert.ok((await tempFileSize(server.root)) >= 5 * mib));
      lost = await stopHashWorkerForTests();
      for (let i = 8; i < 12; i++) yield data(chunkOf(i));
    }
    const failure = await failureOf(server.fileTools.uploadFile(crashing()));
    assert.ok(lost >= 1, `hashes in progress when the worker stopped: ${lost}`);
    assert.equal(failure.code, Code.Internal);
    assert.equal(failure.reason, "HASH_FAILED");
    assert.equal(
      failure.message,
      "Upload of 'crash.bin' failed: the server's hashing thread stopped while it hashed the upload, so its sha256 cannot be trusted; nothing was changed. Resend the file.",
    );
    assert.equal(failure.metadata["path"], "crash.bin");
    await eventually(async () => assert.deepEqual(await snapshot(server.root), before));

    const chunks = Array.from({ length: 8 }, (_, i) => chunkOf(100 + i));
    async function* whole(): AsyncGenerator<UploadFileRequest> {
      yield header("crash.bin");
      for (const chunk of chunks) yield data(chunk);
    }
    const response = await server.fileTools.uploadFile(whole());
    const expected = Buffer.concat(chunks);
    assert.equal(response.size, BigInt(expected.length));
    assert.equal(response.sha256, sha256Hex(expected));
    assert.equal(sha256Hex(await readFile(path.join(server.root, "crash.bin"))), sha256Hex(expected));
  });

  it("a ReadFile whose hash worker stops fails with HASH_FAILED naming its path, many times over, and reads go on working", async () => {
    const content = Buffer.concat(Array.from({ length: 24 }, (_, i) => chunkOf(200 + i)));
    await writeFile(path.join(server.root, "read.bin"), content);
    // Each failed read must give back its room in the hash queue shared by all reads (16 MiB):
    // twenty failures of 1 MiB chunks would otherwise leave none, and every later read would wait.
    for (let attempt = 0; attempt < 20; attempt++) {
      const stream = server.fileTools
        .readFile({ path: "read.bin", mode: ReadMode.BYTES, chunkSize: mib })
        [Symbol.asyncIterator]();
      assert.equal((await stream.next()).value?.part.case, "info");
      assert.equal((await stream.next()).value?.part.case, "data");
      assert.ok((await stopHashWorkerForTests()) >= 1);
      const failure = await failureOf(
        (async () => {
          for (let i = 0; i < 100; i++) if ((await stream.next()).done === true) return;
        })(),
      );
      assert.equal(failure.code, Code.Internal);
      assert.equal(failure.reason, "HASH_FAILED");
      assert.equal(
        failure.message,
        'Reading "read.bin" failed: the server\'s hashing thread stopped while it hashed the bytes read, so their sha256 cannot be given; read it again.',
      );
    }
    let bytes = 0;
    let sha256 = "";
    for await (const message of server.fileTools.readFile(
      { path: "read.bin", mode: ReadMode.BYTES, chunkSize: mib },
      { signal: AbortSignal.timeout(20_000) },
    )) {
      if (message.part.case === "data") bytes += message.part.value.byteLength;
      if (message.part.case === "summary") sha256 = message.part.value.sha256;
    }
    assert.equal(bytes, content.length);
    assert.equal(sha256, sha256Hex(content));
  });

  it("any write whose hash worker stops fails with HASH_FAILED naming its path, and changes nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "w.bin"), "old content");
    const before = await snapshot(root);
    async function* content(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 8; i++) yield chunkOf(i);
      await eventually(async () => assert.ok((await tempFileSize(root)) >= 5 * mib));
      assert.ok((await stopHashWorkerForTests()) >= 1);
      for (let i = 8; i < 12; i++) yield chunkOf(i);
    }
    const resolved = await sandbox.resolveForWrite("w.bin");
    await assert.rejects(
      commitWrite(sandbox, resolved, content(), {
        createParents: false,
        preconditions: parsePreconditions(undefined, undefined),
      }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "HASH_FAILED"), String(err));
        assert.equal(
          err.message,
          "Cannot write 'w.bin': the server's hashing thread stopped while it hashed the new content, so its sha256 cannot be trusted; nothing was changed. Retry the write.",
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("an off-thread hash whose worker stopped refuses more bytes and its digest, instead of restarting", async () => {
    const shared = (text: string) => {
      const bytes = new Uint8Array(new SharedArrayBuffer(text.length));
      bytes.set(Buffer.from(text));
      return bytes;
    };
    const hash = new OffThreadSha256();
    await hash.update(shared("before the crash"));
    assert.ok((await stopHashWorkerForTests()) >= 1);
    assert.throws(
      () => hash.update(shared("after the crash")),
      (err: unknown) => isToolhostError(err, "HASH_FAILED"),
    );
    await assert.rejects(hash.digest(), (err: unknown) => isToolhostError(err, "HASH_FAILED"));
    const fresh = new OffThreadSha256();
    await fresh.update(shared("a new hash"));
    assert.equal(await fresh.digest(), sha256Hex("a new hash"));
  });
});
