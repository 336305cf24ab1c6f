import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { failureOf, snapshot } from "../files/write-fixtures.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { hardLinkFixture, leaks, secretText } from "./hard-link-fixture.js";

// Issue 27, findings #1 and #12: CopyFile (single and recursive) turned a hard link to an outside
// 0600 file into a 1-link copy that ReadFile then served, and WriteFile over such a file answered
// (and the history recorded) the outside file's sha256. Every one of these is now refused by the
// sandbox's one content path, with nothing changed on disk and nothing recorded.

/** refusal checks one call's error: PATH_TRAVERSAL naming the client's path, what to do, no secret. */
async function expectHardLinkRefusal(call: Promise<unknown>, clientPath: string): Promise<void> {
  const failure = await failureOf(call);
  assert.equal(failure.code, Code.PermissionDenied, failure.message);
  assert.equal(failure.reason, "PATH_TRAVERSAL", failure.message);
  for (const word of [`"${clientPath}"`, "hard links", "remove the extra links", "allow_hard_links"]) {
    assert.ok(failure.message.includes(word), `"${failure.message}" should contain ${word}`);
  }
  assert.equal(leaks(JSON.stringify(failure)), false, "the refusal carries nothing of the outside file");
}

/** unchanged runs `fn` and checks that the root, the history's list of innocent.txt and the secret are as before. */
async function unchanged(server: TestServer, root: string, secret: string, fn: () => Promise<void>): Promise<void> {
  const before = await snapshot(root);
  const secretBefore = await stat(secret);
  await fn();
  assert.deepEqual(await snapshot(root), before, "nothing in the root changed");
  assert.equal(await readFile(secret, "utf8"), secretText);
  assert.equal((await stat(secret)).mtimeMs, secretBefore.mtimeMs);
  assert.deepEqual(
    (await server.fileTools.listFileHistory({ path: "innocent.txt" })).changes,
    [],
    "nothing was recorded",
  );
}

async function* upload(path: string, bytes: Buffer): AsyncGenerator<UploadFileRequest> {
  yield create(UploadFileRequestSchema, { part: { case: "header", value: { path } } });
  yield create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

describe("a hard link to an outside file (issue 27, #1 and #12)", () => {
  it("#1: CopyFile refuses it as a source, single and recursive, and leaves no copy behind", async () => {
    const { root, secret } = await hardLinkFixture();
    const server = await startTestServer({ roots: [{ path: root }], history: true });
    try {
      await unchanged(server, root, secret, async () => {
        await expectHardLinkRefusal(
          server.fileTools.copyFile({ from: "innocent.txt", to: "copy.txt" }),
          "innocent.txt",
        );
        await expectHardLinkRefusal(
          server.fileTools.copyFile({ from: "tree", to: "tree-copy", recursive: true }),
          "tree/innocent.txt",
        );
        await expectHardLinkRefusal(
          server.fileTools.copyFile({ from: "innocent.txt", to: "plain.txt", overwrite: true }),
          "innocent.txt",
        );
      });
      await assert.rejects(server.fileTools.statFile({ path: "copy.txt" }), /not found/);
      await assert.rejects(server.fileTools.statFile({ path: "tree-copy" }), /not found/);
    } finally {
      await server.close();
    }
  });

  it("#12: WriteFile, UploadFile and a guarded WriteFile over it are refused, with no previous_sha256", async () => {
    const { root, secret } = await hardLinkFixture();
    const server = await startTestServer({ roots: [{ path: root }], history: true });
    try {
      await unchanged(server, root, secret, async () => {
        await expectHardLinkRefusal(
          server.fileTools.writeFile({ path: "innocent.txt", content: { case: "text", value: "new\n" } }),
          "innocent.txt",
        );
        await expectHardLinkRefusal(
          server.fileTools.uploadFile(upload("innocent.txt", Buffer.alloc(2 * 1024 * 1024, "u"))),
          "innocent.txt",
        );
        // A guard whose refusal would name the current content's hash names none.
        await expectHardLinkRefusal(
          server.fileTools.writeFile({
            path: "innocent.txt",
            content: { case: "text", value: "x" },
            ifSha256: "0".repeat(64),
          }),
          "innocent.txt",
        );
      });
    } finally {
      await server.close();
    }
  });

  it("MoveFile (whose reply carries the content's sha256) and a guarded DeleteFile are refused", async () => {
    const { root, secret } = await hardLinkFixture();
    const server = await startTestServer({ roots: [{ path: root }], history: true });
    try {
      await unchanged(server, root, secret, async () => {
        await expectHardLinkRefusal(
          server.fileTools.moveFile({ from: "innocent.txt", to: "moved.txt" }),
          "innocent.txt",
        );
        await expectHardLinkRefusal(
          server.fileTools.moveFile({ from: "innocent.txt", to: "moved.txt", ifSha256: "0".repeat(64) }),
          "innocent.txt",
        );
        await expectHardLinkRefusal(
          server.fileTools.deleteFile({ path: "innocent.txt", ifSha256: "0".repeat(64) }),
          "innocent.txt",
        );
      });
      // Deleting the name (no guard) reads nothing: it is how the extra link is removed.
      assert.equal((await server.fileTools.deleteFile({ path: "innocent.txt" })).existed, true);
      assert.equal((await stat(secret)).nlink, 2, "only the link in the root went");
      assert.equal(await readFile(secret, "utf8"), secretText);
    } finally {
      await server.close();
    }
  });

  it("is copied, written over and moved when sandbox.allow_hard_links is on", async () => {
    const { root, secret } = await hardLinkFixture();
    const server = await startTestServer({ roots: [{ path: root }], allowHardLinks: true });
    try {
      const copied = await server.fileTools.copyFile({ from: "tree", to: "tree-copy", recursive: true });
      assert.equal(copied.entriesCopied, 3n);
      assert.equal(await readFile(`${root}/tree-copy/innocent.txt`, "utf8"), secretText);
      const written = await server.fileTools.writeFile({
        path: "innocent.txt",
        content: { case: "text", value: "new\n" },
      });
      assert.notEqual(written.previousSha256, "");
      assert.equal(
        await readFile(secret, "utf8"),
        secretText,
        "a write replaces the name in the root, never the outside file",
      );
    } finally {
      await server.close();
    }
  });
});
