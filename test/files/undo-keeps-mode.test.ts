import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Found by the review of the undo model: the history records what a path held as its type and
// content only, never its mode. An undo that makes an entry again makes it with the default mode:
// a 0600 key file deleted and brought back by UndoLastChange is 0644 (readable by every local
// user), and so is one brought back by RestoreFile; a 0700 folder removed and made again is 0755.
// "An undo puts back exactly the state before the change it undoes."

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe("undo puts back an entry's mode", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ history: true });
  });
  after(() => server.close());

  it("a deleted 0600 file comes back 0600", async () => {
    const files = server.fileTools;
    await files.writeFile({
      path: "key.pem",
      content: { case: "text", value: "-----BEGIN PRIVATE KEY-----\n" },
      mode: 0o600,
    });
    assert.equal(await modeOf(join(server.root, "key.pem")), "600");
    await files.deleteFile({ path: "key.pem" });
    await files.undoLastChange({ path: "key.pem" });
    assert.equal(
      await modeOf(join(server.root, "key.pem")),
      "600",
      "UndoLastChange of the delete made the key readable by everyone",
    );
  });

  it("RestoreFile of a deleted 0600 file makes it 0600 again", async () => {
    const files = server.fileTools;
    const key = "-----BEGIN PRIVATE KEY----- restore\n";
    await files.writeFile({ path: "restore.pem", content: { case: "text", value: key }, mode: 0o600 });
    await files.deleteFile({ path: "restore.pem" });
    await files.restoreFile({ path: "restore.pem", sha256: sha256Hex(key) });
    assert.equal(await modeOf(join(server.root, "restore.pem")), "600");
  });

  it("the file a move replaced comes back with its mode when the move is undone", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "target.pem", content: { case: "text", value: "secret\n" }, mode: 0o600 });
    await files.writeFile({ path: "incoming.txt", content: { case: "text", value: "public\n" }, mode: 0o644 });
    await files.moveFile({ from: "incoming.txt", to: "target.pem", overwrite: true });
    await files.undoLastChange({ path: "target.pem" });
    assert.equal(await readFile(join(server.root, "target.pem"), "utf8"), "secret\n");
    assert.equal(await modeOf(join(server.root, "target.pem")), "600");
    assert.equal(await modeOf(join(server.root, "incoming.txt")), "644");
  });

  it("a removed 0700 folder comes back 0700", async () => {
    const files = server.fileTools;
    await files.makeDirectory({ path: "private", mode: 0o700 });
    await files.removeDirectory({ path: "private" });
    await files.undoLastChange({ path: "private" });
    assert.equal(await modeOf(join(server.root, "private")), "700");
  });
});
