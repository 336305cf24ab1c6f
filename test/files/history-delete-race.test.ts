import assert from "node:assert/strict";
import { access, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { ChangeOperation } from "../../gen/ts/toolhost/files/v1/history_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { lockFileName } from "../../src/files/write/file-lock.js";
import { writerIdentity } from "../../src/files/write/writer-identity.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// The history captures a file's content before a change, then the change runs. A DeleteFile that
// raced a write of the same file captured the content before the write and then deleted the
// written one: its entry named the older content as what it deleted, UndoLastChange put the older
// content back, and what was deleted was in the history nowhere. Here the write is held at the
// file's cross-process lock (as a replica holding it would) until the delete has captured.
describe("a delete racing a write of the same file", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ history: true });
  });
  after(() => server.close());

  it("records, and undo puts back, the content it deleted", async () => {
    const path = "raced.txt";
    const v1 = "v1\n";
    const v2 = "v2, written while the delete waited\n";
    await server.fileTools.writeFile({ path, content: { case: "text", value: v1 } });
    const lock = join(server.root, lockFileName(path));
    await writeFile(lock, JSON.stringify({ identity: writerIdentity(), pid: process.pid }), { flag: "wx" });
    const write = server.fileTools.writeFile({ path, content: { case: "text", value: v2 }, ifSha256: sha256Hex(v1) });
    await sleep(150);
    const remove = server.fileTools.deleteFile({ path });
    await sleep(300);
    await unlink(lock);
    const [written, removed] = await Promise.allSettled([write, remove]);
    assert.equal(written.status, "fulfilled");
    assert.equal(removed.status, "fulfilled");
    await assert.rejects(access(join(server.root, path)), "the delete ran last");
    const [last] = (await server.fileTools.listFileHistory({ path })).changes;
    assert.equal(last?.operation, ChangeOperation.DELETE);
    assert.equal(last?.sha256Before, sha256Hex(v2), "the delete's entry names the content it deleted");
    await server.fileTools.undoLastChange({ path });
    assert.equal(await readFile(join(server.root, path), "utf8"), v2);
  });
});
