import assert from "node:assert/strict";
import { access, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { lockFileName } from "../../src/files/write/file-lock.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { snapshot } from "./write-fixtures.js";
import { reasonOf } from "../support/call-outcome.js";

// The reserved prefix was refused only as a path's last component, so create_parents (and
// ApplyPatch's Add File) made folders with it. A folder named like the lock file of a file
// (`.toolhost-tmp-lock-` + the hash of its name, which any client can compute) made every guarded
// write of that file wait 10 s and fail FILE_LOCKED, and after 15 s was renamed aside as a stale
// lock with the client's files in it; any such folder hid its files from ListDirectory.
describe("folders with the reserved prefix", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("cannot be created by WriteFile with create_parents or by ApplyPatch, and nothing changes", async () => {
    await writeFile(join(server.root, "target.txt"), "t\n");
    const lockFolder = lockFileName("target.txt");
    const before = await snapshot(server.root);
    for (const folder of [lockFolder, ".toolhost-tmp-hidden", `sub/${lockFolder}`]) {
      const path = `${folder}/planted.txt`;
      assert.equal(
        await reasonOf(
          server.fileTools.writeFile({ path, content: { case: "text", value: "x" }, createParents: true }),
          "ok",
        ),
        "INVALID_PATH",
        path,
      );
      assert.equal(
        await reasonOf(
          server.fileTools.applyPatch({ patch: `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch` }),
          "ok",
        ),
        "INVALID_PATH",
        path,
      );
    }
    assert.deepEqual(await snapshot(server.root), before);
    await assert.rejects(access(join(server.root, lockFolder)));
    // So the guarded write of the file it would have blocked goes through at once.
    await server.fileTools.writeFile({
      path: "target.txt",
      content: { case: "text", value: "u\n" },
      ifSha256: sha256Hex("t\n"),
    });
    assert.equal(await readFile(join(server.root, "target.txt"), "utf8"), "u\n");
  });
});
