import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ChangeOperation } from "../../gen/ts/toolhost/files/v1/history_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { refusalOf } from "../support/call-outcome.js";

describe("change history", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ history: { maxFileBytes: 1024 } });
  });
  after(() => server.close());

  it("records write, edit, delete with hashes before and after, newest first", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "h.txt", content: { case: "text", value: "one\n" } });
    await files.editFile({ path: "h.txt", edits: [{ kind: { case: "append", value: { text: "two\n" } } }] });
    await files.editFile({
      path: "h.txt",
      edits: [{ kind: { case: "append", value: { text: "x\n" } } }],
      dryRun: true,
    });
    await files.deleteFile({ path: "h.txt" });
    const { changes } = await files.listFileHistory({ path: "h.txt" });
    assert.deepEqual(
      changes.map((c) => [c.operation, c.sha256Before, c.sha256After, c.beforeAvailable, c.caller]),
      [
        [ChangeOperation.DELETE, sha256Hex("one\ntwo\n"), "", true, "anonymous"],
        [ChangeOperation.EDIT, sha256Hex("one\n"), sha256Hex("one\ntwo\n"), true, "anonymous"],
        [ChangeOperation.WRITE, "", sha256Hex("one\n"), false, "anonymous"],
      ],
    );
  });

  it("undoes step by step: the delete, then the edit, then the creation", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "u.txt", content: { case: "text", value: "a\n" } });
    await files.writeFile({ path: "u.txt", content: { case: "text", value: "b\n" } });
    await files.deleteFile({ path: "u.txt" });
    const undone = await files.undoLastChange({ path: "u.txt" });
    assert.equal(undone.undone?.operation, ChangeOperation.DELETE);
    assert.equal(await readFile(join(server.root, "u.txt"), "utf8"), "b\n");
    // The undo is itself the last change now; undoing it would delete again. Restore by hash instead.
    const restored = await files.restoreFile({ path: "u.txt", sha256: sha256Hex("a\n"), ifSha256: sha256Hex("b\n") });
    assert.equal(restored.sha256, sha256Hex("a\n"));
    assert.equal(await readFile(join(server.root, "u.txt"), "utf8"), "a\n");
  });

  it("undo refuses when the file changed since the change it would undo, and changes nothing", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "g.txt", content: { case: "text", value: "1\n" } });
    await files.writeFile({ path: "g.txt", content: { case: "text", value: "2\n" } });
    await writeFile(join(server.root, "g.txt"), "changed outside\n");
    assert.equal((await refusalOf(files.undoLastChange({ path: "g.txt" }))).reason, "PRECONDITION_FAILED");
    assert.equal(await readFile(join(server.root, "g.txt"), "utf8"), "changed outside\n");
  });

  it("undo of a creation removes the file", async () => {
    await server.fileTools.writeFile({ path: "new.txt", content: { case: "text", value: "n\n" } });
    const res = await server.fileTools.undoLastChange({ path: "new.txt" });
    assert.equal(res.removed, true);
    await assert.rejects(stat(join(server.root, "new.txt")));
  });

  it("records a file over max_file_bytes without its content, and cannot restore it", async () => {
    const big = "x".repeat(2048);
    await server.fileTools.writeFile({ path: "big.txt", content: { case: "text", value: big } });
    await server.fileTools.writeFile({ path: "big.txt", content: { case: "text", value: "small\n" } });
    const [last] = (await server.fileTools.listFileHistory({ path: "big.txt" })).changes;
    assert.equal(last?.sha256Before, sha256Hex(big));
    assert.equal(last?.beforeAvailable, false);
    // Recorded, but what it replaced is not stored: the undo says so and changes nothing.
    assert.equal((await refusalOf(server.fileTools.undoLastChange({ path: "big.txt" }))).reason, "UNDO_UNAVAILABLE");
    assert.equal(
      (await refusalOf(server.fileTools.restoreFile({ path: "big.txt", sha256: sha256Hex(big) }))).reason,
      "NOT_IN_HISTORY",
    );
    assert.equal(await readFile(join(server.root, "big.txt"), "utf8"), "small\n");
  });

  // Content the history never held and an undo with nothing recorded (NOT_IN_HISTORY, nothing
  // changed) are features/file-history.feature's cases.
  it("refuses bad limits and paths outside the roots", async () => {
    assert.equal(
      (await refusalOf(server.fileTools.listFileHistory({ path: "h.txt", limit: 5000 }))).reason,
      "INVALID_ARGUMENT",
    );
    assert.equal((await refusalOf(server.fileTools.listFileHistory({ path: "../outside" }))).reason, "PATH_TRAVERSAL");
  });

  it("is HISTORY_DISABLED on a server without history", async () => {
    const plain = await startTestServer();
    try {
      assert.equal((await refusalOf(plain.fileTools.listFileHistory({ path: "a.txt" }))).reason, "HISTORY_DISABLED");
    } finally {
      await plain.close();
    }
  });

  it("keeps the store within max_bytes, oldest contents first", async () => {
    const small = await startTestServer({ history: { maxBytes: 4096, maxFileBytes: 1024 } });
    try {
      for (let i = 0; i < 20; i++) {
        await small.fileTools.writeFile({
          path: "rot.txt",
          content: { case: "text", value: `${i}`.padEnd(1000, ".") },
        });
      }
      await new Promise((r) => setTimeout(r, 200));
      const changes = (await small.fileTools.listFileHistory({ path: "rot.txt" })).changes;
      assert.equal(changes.length, 20);
      assert.equal(changes[0]?.beforeAvailable, true, "the newest content before is kept");
      assert.equal(changes.at(-2)?.beforeAvailable, false, "the oldest were pruned");
    } finally {
      await small.close();
    }
  });
});

describe("change history of moves", () => {
  it("records a moved file at both paths, and undo at the source brings it back", async () => {
    const server = await startTestServer({ history: true });
    try {
      const files = server.fileTools;
      await files.writeFile({ path: "m/a.txt", content: { case: "text", value: "moving\n" } });
      await files.moveFile({ from: "m/a.txt", to: "m/b.txt" });
      const [left] = (await files.listFileHistory({ path: "m/a.txt" })).changes;
      const [arrived] = (await files.listFileHistory({ path: "m/b.txt" })).changes;
      assert.deepEqual(
        [left?.operation, left?.sha256Before, left?.sha256After, left?.beforeAvailable],
        [ChangeOperation.MOVE, sha256Hex("moving\n"), "", true],
      );
      assert.deepEqual(
        [arrived?.operation, arrived?.sha256Before, arrived?.sha256After],
        [ChangeOperation.MOVE, "", sha256Hex("moving\n")],
      );
      await files.undoLastChange({ path: "m/a.txt" });
      assert.equal(await readFile(join(server.root, "m/a.txt"), "utf8"), "moving\n");
    } finally {
      await server.close();
    }
  });
});
