import assert from "node:assert/strict";
import { lstat, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ChangeOperation } from "../../gen/ts/toolhost/files/v1/history_pb.js";
import { FileType } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { startModelService } from "./history-model-service.js";
import { reasonOf } from "../support/call-outcome.js";

// Each case here is a discrepancy the history model (history-model.test.ts) showed on the undo of
// before round 3, pinned as its own regression test against a live server.

const limit = 1024;
const big = "B".repeat(2 * limit); // over max_file_bytes: no blob is ever stored for it

describe("undo never loses content (history model regressions)", () => {
  let server: TestServer;
  let n = 0;
  /** dir gives each case its own folder. */
  const dir = () => `case${++n}`;
  const read = (p: string) => readFile(join(server.root, p), "utf8").catch(() => undefined);
  before(async () => {
    server = await startTestServer({ history: { maxFileBytes: limit } });
  });
  after(() => server.close());

  it("#4: undo at a move's target moves a file over max_file_bytes back, and never deletes it", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/a.bin`, content: { case: "text", value: big }, createParents: true });
    await files.moveFile({ from: `${d}/a.bin`, to: `${d}/b.bin` });
    const undone = await files.undoLastChange({ path: `${d}/b.bin` });
    assert.deepEqual([await read(`${d}/a.bin`), await read(`${d}/b.bin`)], [big, undefined]);
    assert.deepEqual([undone.removed, undone.otherPaths], [true, [`${d}/a.bin`]]);
    // The undo is a move the other way: undoing it again (at either path) moves the file again.
    const redone = await files.undoLastChange({ path: `${d}/a.bin` });
    assert.deepEqual([redone.removed, await read(`${d}/a.bin`), await read(`${d}/b.bin`)], [true, undefined, big]);
    await files.undoLastChange({ path: `${d}/b.bin` });
    assert.deepEqual([await read(`${d}/a.bin`), await read(`${d}/b.bin`)], [big, undefined]);
  });

  it("undo of a move refuses while the other path has a later change, even one undone since", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.makeDirectory({ path: `${d}/x`, parents: true });
    await files.writeFile({ path: `${d}/x/f.txt`, content: { case: "text", value: "f\n" } });
    await files.moveFile({ from: `${d}/x`, to: `${d}/y` });
    await files.moveFile({ from: `${d}/y`, to: `${d}/z` });
    await files.undoLastChange({ path: `${d}/z` }); // y holds the folder again, by a later change
    assert.equal(await reasonOf(files.undoLastChange({ path: `${d}/x` })), "PRECONDITION_FAILED");
    assert.deepEqual([await read(`${d}/y/f.txt`), await read(`${d}/x/f.txt`)], ["f\n", undefined], "nothing was moved");
  });

  it("undo at a move's source moves the file back instead of copying it", async () => {
    const d = dir();
    await server.fileTools.writeFile({
      path: `${d}/a.txt`,
      content: { case: "text", value: "A\n" },
      createParents: true,
    });
    await server.fileTools.moveFile({ from: `${d}/a.txt`, to: `${d}/b.txt` });
    const undone = await server.fileTools.undoLastChange({ path: `${d}/a.txt` });
    assert.deepEqual([await read(`${d}/a.txt`), await read(`${d}/b.txt`)], ["A\n", undefined]);
    assert.deepEqual([undone.removed, undone.sha256, undone.otherPaths], [false, sha256Hex("A\n"), [`${d}/b.txt`]]);
  });

  it("undo of a move over a file puts the replaced file back at the target", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/a.txt`, content: { case: "text", value: "A\n" }, createParents: true });
    await files.writeFile({ path: `${d}/b.txt`, content: { case: "text", value: "B\n" } });
    await files.moveFile({ from: `${d}/a.txt`, to: `${d}/b.txt`, overwrite: true });
    const undone = await files.undoLastChange({ path: `${d}/b.txt` });
    assert.deepEqual([await read(`${d}/a.txt`), await read(`${d}/b.txt`)], ["A\n", "B\n"]);
    assert.deepEqual([undone.removed, undone.sha256], [false, sha256Hex("B\n")]);
  });

  it("a deleted file over max_file_bytes is recorded as a file; undo refuses and deletes nothing made since", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/big.bin`, content: { case: "text", value: big }, createParents: true });
    await files.deleteFile({ path: `${d}/big.bin` });
    // A file made at the path since, around toolhost: the undo must neither delete it nor say it removed anything.
    await writeFile(join(server.root, d, "big.bin"), "made by someone else\n");
    const reason = await reasonOf(files.undoLastChange({ path: `${d}/big.bin` }));
    assert.equal(await read(`${d}/big.bin`), "made by someone else\n");
    assert.equal(reason, "UNDO_UNAVAILABLE");
    const [deleted] = (await files.listFileHistory({ path: `${d}/big.bin` })).changes;
    // Recorded as a file of that size, not hashed (a large file's hash would cost a read of all of it), not stored.
    assert.deepEqual(
      [deleted?.operation, deleted?.typeBefore, deleted?.sizeBefore, deleted?.sha256Before, deleted?.beforeAvailable],
      [ChangeOperation.DELETE, FileType.FILE, BigInt(big.length), "", false],
    );
  });

  it("undo of the creation of a file over max_file_bytes refuses: it could not be undone again", async () => {
    const d = dir();
    await server.fileTools.writeFile({
      path: `${d}/new.bin`,
      content: { case: "text", value: big },
      createParents: true,
    });
    const reason = await reasonOf(server.fileTools.undoLastChange({ path: `${d}/new.bin` }));
    assert.equal(await read(`${d}/new.bin`), big);
    assert.equal(reason, "UNDO_UNAVAILABLE");
  });

  it("undo never writes over a file the history cannot hold", async () => {
    const d = dir();
    await server.fileTools.writeFile({
      path: `${d}/f.txt`,
      content: { case: "text", value: "small\n" },
      createParents: true,
    });
    await server.fileTools.writeFile({ path: `${d}/f.txt`, content: { case: "text", value: big } });
    const reason = await reasonOf(server.fileTools.undoLastChange({ path: `${d}/f.txt` }));
    assert.equal(await read(`${d}/f.txt`), big);
    assert.equal(reason, "UNDO_UNAVAILABLE");
  });

  it("CopyFile is recorded at its target; undo there puts back what the copy replaced", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/a.txt`, content: { case: "text", value: "A\n" }, createParents: true });
    await files.writeFile({ path: `${d}/b.txt`, content: { case: "text", value: "B\n" } });
    await files.copyFile({ from: `${d}/a.txt`, to: `${d}/b.txt`, overwrite: true });
    const [copied] = (await files.listFileHistory({ path: `${d}/b.txt` })).changes;
    await files.undoLastChange({ path: `${d}/b.txt` }).catch(() => undefined);
    assert.deepEqual([await read(`${d}/a.txt`), await read(`${d}/b.txt`)], ["A\n", "B\n"]);
    assert.deepEqual(
      [copied?.operation, copied?.sha256Before, copied?.sha256After, copied?.beforeAvailable],
      [ChangeOperation.COPY, sha256Hex("B\n"), sha256Hex("A\n"), true],
    );
  });

  it("MakeDirectory and RemoveDirectory are recorded; undo removes or makes the empty folder", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.makeDirectory({ path: d });
    assert.equal((await files.undoLastChange({ path: d })).removed, true);
    await assert.rejects(lstat(join(server.root, d)));
    assert.equal((await files.undoLastChange({ path: d })).removed, false);
    assert.ok((await lstat(join(server.root, d))).isDirectory());
    await files.removeDirectory({ path: d });
    await files.undoLastChange({ path: d });
    assert.ok((await lstat(join(server.root, d))).isDirectory());
    const ops = (await files.listFileHistory({ path: d })).changes.map((c) => [
      ChangeOperation[c.operation],
      FileType[c.typeBefore],
      FileType[c.typeAfter],
    ]);
    assert.deepEqual(ops, [
      ["RESTORE", "UNSPECIFIED", "DIRECTORY"],
      ["REMOVE_DIRECTORY", "DIRECTORY", "UNSPECIFIED"],
      ["RESTORE", "UNSPECIFIED", "DIRECTORY"],
      ["RESTORE", "DIRECTORY", "UNSPECIFIED"],
      ["MAKE_DIRECTORY", "UNSPECIFIED", "DIRECTORY"],
    ]);
  });

  it("undo of a RemoveDirectory that took entries with it refuses, and makes nothing", async () => {
    const d = dir();
    await server.fileTools.writeFile({
      path: `${d}/in/x.txt`,
      content: { case: "text", value: "x\n" },
      createParents: true,
    });
    await server.fileTools.removeDirectory({ path: `${d}/in`, recursive: true });
    assert.equal(await reasonOf(server.fileTools.undoLastChange({ path: `${d}/in` })), "UNDO_UNAVAILABLE");
    await assert.rejects(lstat(join(server.root, d, "in")));
  });

  it("a moved folder is recorded at both paths and moved back by one undo", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/src/x.txt`, content: { case: "text", value: "x\n" }, createParents: true });
    await files.moveFile({ from: `${d}/src`, to: `${d}/dst` });
    const [arrived] = (await files.listFileHistory({ path: `${d}/dst` })).changes;
    const [left] = (await files.listFileHistory({ path: `${d}/src` })).changes;
    await files.undoLastChange({ path: `${d}/dst` }).catch(() => undefined);
    assert.deepEqual([await read(`${d}/src/x.txt`), await read(`${d}/dst/x.txt`)], ["x\n", undefined]);
    assert.deepEqual(
      [arrived?.typeAfter, arrived?.movedFrom, left?.typeBefore, left?.movedTo],
      [FileType.DIRECTORY, `${d}/src`, FileType.DIRECTORY, `${d}/dst`],
    );
    assert.equal(arrived?.changeId, left?.changeId);
  });

  it("ApplyPatch is undone as a whole from any of its files", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/a.txt`, content: { case: "text", value: "one\n" }, createParents: true });
    await files.applyPatch({
      patch: `*** Begin Patch\n*** Update File: ${d}/a.txt\n@@\n-one\n+uno\n*** Add File: ${d}/c.txt\n+new\n*** End Patch`,
    });
    const undone = await files.undoLastChange({ path: `${d}/c.txt` });
    assert.deepEqual([await read(`${d}/a.txt`), await read(`${d}/c.txt`)], ["one\n", undefined]);
    assert.deepEqual([undone.removed, undone.otherPaths], [true, [`${d}/a.txt`]]);
  });

  it("deleting a symbolic link records the link, not the file it points to; undo does not make links", async () => {
    const files = server.fileTools;
    const d = dir();
    await files.writeFile({ path: `${d}/target.txt`, content: { case: "text", value: "t\n" }, createParents: true });
    await symlink("target.txt", join(server.root, d, "link"));
    await files.deleteFile({ path: `${d}/link` });
    const target = (await files.listFileHistory({ path: `${d}/target.txt` })).changes.map((c) => c.operation);
    assert.deepEqual(target, [ChangeOperation.WRITE], "the file the link pointed to was not deleted");
    const [removed] = (await files.listFileHistory({ path: `${d}/link` })).changes;
    assert.deepEqual([removed?.operation, removed?.typeBefore], [ChangeOperation.DELETE, FileType.SYMLINK]);
    assert.equal(await reasonOf(files.undoLastChange({ path: `${d}/link` })), "UNDO_UNAVAILABLE");
    await assert.rejects(readlink(join(server.root, d, "link")));
    assert.equal(await read(`${d}/target.txt`), "t\n");
  });
});

describe("records of an earlier version", () => {
  it("a move recorded without its other path is not undone: UNDO_UNAVAILABLE, nothing changed", async () => {
    const service = await startModelService(limit);
    try {
      await service.unary("writeFile", { path: "b.txt", content: { case: "text", value: "moved\n" } });
      const key = await service.history.keyAt({ root: service.root, relative: "b.txt" });
      // As round 2 wrote a move's target: no types, no change id, no other path.
      await service.history.record(key, {
        time: Date.now(),
        operation: "move",
        caller: "anonymous",
        before: "",
        after: sha256Hex("moved\n"),
        sizeBefore: 0,
      });
      const reason = await service.unary("undoLastChange", { path: "b.txt" }).then(
        () => "none",
        (err: unknown) => ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason,
      );
      assert.equal(reason, "UNDO_UNAVAILABLE");
      assert.deepEqual(Object.fromEntries(await service.tree()), { "b.txt": "moved\n" });
    } finally {
      await service.close();
    }
  });
});
