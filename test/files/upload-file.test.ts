import assert from "node:assert/strict";
import { readFile, writeFile as fsWriteFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe("uploadFile", () => {
  it("streams chunks into a new file and reports it", async () => {
    const { root, sandbox } = await writeFixture();
    const result = await uploadFile(sandbox, { path: "up/load.bin" }, chunks("hello ", "upload"));
    assert.deepEqual(result, { created: true, size: 12, sha256: sha256Hex("hello upload"), previousSha256: "" });
    assert.equal(await readFile(path.join(root, "up/load.bin"), "utf8"), "hello upload");
  });

  it("commits when expected_size and expected_sha256 match", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "f.bin"), "old");
    const result = await uploadFile(
      sandbox,
      { path: "f.bin", expectedSize: 6, expectedSha256: sha256Hex("abcdef") },
      chunks("abc", "def"),
    );
    assert.deepEqual(result, {
      created: false,
      size: 6,
      sha256: sha256Hex("abcdef"),
      previousSha256: sha256Hex("old"),
    });
  });

  it("changes nothing when fewer bytes arrive than expected_size", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "f.bin"), "old");
    const before = await snapshot(root);
    await assert.rejects(uploadFile(sandbox, { path: "f.bin", expectedSize: 10 }, chunks("abc")), (err: unknown) => {
      assert.ok(isToolhostError(err, "UPLOAD_MISMATCH"));
      assert.equal(
        err.message,
        "Upload of 'f.bin' does not match its header: expected_size is 10 bytes but 3 bytes were received; nothing was changed. Resend the file.",
      );
      return true;
    });
    assert.deepEqual(await snapshot(root), before);
  });

  it("stops as soon as more bytes arrive than expected_size", async () => {
    const { root, sandbox } = await writeFixture();
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled++;
        yield Buffer.alloc(4, "x");
      }
    }
    await assert.rejects(uploadFile(sandbox, { path: "f.bin", expectedSize: 10 }, endless()), (err: unknown) => {
      assert.ok(isToolhostError(err, "UPLOAD_MISMATCH"));
      assert.match(err.message, /expected_size is 10 bytes but more than 10 bytes were received; nothing was changed/);
      return true;
    });
    assert.equal(pulled, 3);
    assert.deepEqual(await snapshot(root), {});
  });

  it("changes nothing when the bytes do not have expected_sha256", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "f.bin"), "old");
    const before = await snapshot(root);
    await assert.rejects(
      uploadFile(sandbox, { path: "f.bin", expectedSha256: sha256Hex("other") }, chunks("abc")),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "UPLOAD_MISMATCH"));
        assert.equal(
          err.message,
          `Upload of 'f.bin' does not match its header: expected_sha256 is ${sha256Hex("other")} but the 3 bytes received have sha256 ${sha256Hex("abc")}; nothing was changed. Resend the file.`,
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("refuses a bad expected_sha256 or expected_size before reading the stream", async () => {
    const { root, sandbox } = await writeFixture();
    await assert.rejects(
      uploadFile(sandbox, { path: "f.bin", expectedSha256: "xyz" }, chunks("a")),
      (err: unknown) =>
        isToolhostError(err, "INVALID_ARGUMENT") &&
        err.message.startsWith("expected_sha256 must be a SHA-256 as 64 hex digits, got 'xyz'"),
    );
    await assert.rejects(
      uploadFile(sandbox, { path: "f.bin", expectedSize: -1 }, chunks("a")),
      (err: unknown) =>
        isToolhostError(err, "INVALID_ARGUMENT") && err.message === "expected_size -1 for 'f.bin' is not a byte count.",
    );
    assert.deepEqual(await snapshot(root), {});
  });

  it("checks if_sha256 and must_not_exist at commit", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "f.bin"), "v1");
    const before = await snapshot(root);
    await assert.rejects(
      uploadFile(sandbox, { path: "f.bin", mustNotExist: true }, chunks("v2")),
      (err: unknown) => isToolhostError(err, "PRECONDITION_FAILED") && err.message.includes(sha256Hex("v1")),
    );
    await assert.rejects(
      uploadFile(sandbox, { path: "f.bin", ifSha256: sha256Hex("v0") }, chunks("v2")),
      (err: unknown) =>
        isToolhostError(err, "PRECONDITION_FAILED") &&
        err.message.includes(sha256Hex("v0")) &&
        err.message.includes(sha256Hex("v1")),
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("a cancel mid-stream leaves the target untouched and no temporary file", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "f.bin"), "old");
    const before = await snapshot(root);
    const controller = new AbortController();
    async function* cancelled(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("part one");
      controller.abort();
      yield Buffer.from("part two");
    }
    await assert.rejects(uploadFile(sandbox, { path: "f.bin" }, cancelled(), { signal: controller.signal }), {
      name: "AbortError",
    });
    assert.deepEqual(await snapshot(root), before);
  });

  it("a stream that breaks leaves the target untouched and no temporary file", async () => {
    const { root, sandbox } = await writeFixture();
    const before = await snapshot(root);
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("part one");
      throw new Error("connection reset");
    }
    await assert.rejects(uploadFile(sandbox, { path: "f.bin" }, broken()), /connection reset/);
    assert.deepEqual(await snapshot(root), before);
  });

  it("is refused on a read-only server, changing nothing", async () => {
    const { root, sandbox } = await writeFixture({ serverReadOnly: true });
    await assert.rejects(
      uploadFile(sandbox, { path: "f.bin" }, chunks("x")),
      (err: unknown) => isToolhostError(err, "READ_ONLY") && /read-only/.test(err.message),
    );
    assert.deepEqual(await snapshot(root), {});
  });
});
