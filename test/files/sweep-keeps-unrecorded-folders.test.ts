import assert from "node:assert/strict";
import { Code } from "@connectrpc/connect";
import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { tempFileName, tempStaleMs } from "../../src/files/write/temp-files.js";
import { writerIdentity } from "../../src/files/write/writer-identity.js";
import { startTestServer } from "../support/test-server.js";
import { failureOf, scratchDir, snapshot } from "./write-fixtures.js";

// Review of branch `content` (issue 27 #10): the start-up sweep now removes, recursively, ANY folder
// whose name matches the temporary-file pattern, as if it were a crashed copy's staging folder. It
// cannot tell a staging folder it made from a user's folder under such a name (from a checkout, an
// archive, a shell, or a tree that toolhost itself copied for a client and answered success for).
// On main the sweep only ever unlinked temporary-named *files*; the user's files inside such a folder
// survived. Severity: DATA LOSS.

const userText = "the user's notes, not a partial copy\n";

describe("the sweep deletes only the staging folders it recorded", () => {
  it("keeps a user's folder named like a legacy temporary file, and what is in it", async () => {
    const base = await scratchDir("review-sweep-foreign-");
    const root = path.join(base, "root");
    const folder = path.join(root, "project", `.toolhost-tmp-${"ab".repeat(16)}`);
    await mkdir(path.join(folder, "docs"), { recursive: true });
    await writeFile(path.join(folder, "docs", "notes.txt"), userText);
    const old = new Date(Date.now() - tempStaleMs - 60_000);
    await utimes(path.join(folder, "docs"), old, old);
    await utimes(folder, old, old); // an old folder: mtime changes only when entries come and go

    const report = await removeStaleTempFiles([{ path: root }]);

    assert.deepEqual(report.removed, [], "the sweep removed a folder it never made");
    assert.equal(await readFile(path.join(folder, "docs", "notes.txt"), "utf8"), userText);
  });

  it("keeps a folder under a dead writer's staging name across a restart; CopyFile refuses to copy one", async () => {
    const base = await scratchDir("review-sweep-copied-");
    const readOnly = path.join(base, "ro");
    const writable = path.join(base, "rw");
    // A folder under an owned temporary name whose writer is a dead pid of our own namespace (the
    // identity is a hash of host name, boot id and pid namespace: anyone on the host can compute it).
    const name = tempFileName({ identity: writerIdentity(), pid: 999_999_999 });
    await mkdir(path.join(readOnly, "src", name), { recursive: true });
    await mkdir(writable);
    await writeFile(path.join(readOnly, "src", name, "notes.txt"), userText);
    await writeFile(path.join(readOnly, "src", "a.txt"), "a\n");
    // The same folder made in the writable root by the user (a shell, an archive, a checkout).
    await mkdir(path.join(writable, "mine", name), { recursive: true });
    await writeFile(path.join(writable, "mine", name, "notes.txt"), userText);
    const roots = [{ path: writable }, { path: readOnly, readOnly: true }];

    let server = await startTestServer({ roots });
    try {
      // No entry is ever created under a reserved name: the copy is refused whole, nothing written.
      const before = await snapshot(writable);
      const refused = await failureOf(
        server.fileTools.copyFile({
          from: path.join(readOnly, "src"),
          to: path.join(writable, "dst"),
          recursive: true,
        }),
      );
      assert.equal(refused.code, Code.InvalidArgument);
      assert.equal(refused.reason, "INVALID_PATH");
      assert.equal(refused.metadata["path"], `${path.join(readOnly, "src")}/${name}`);
      assert.match(
        refused.message,
        new RegExp(
          `^Cannot copy '${path.join(readOnly, "src")}/${name}': names starting with "\\.toolhost-tmp-" are reserved .*nothing was copied\\. Rename that entry outside toolhost`,
        ),
      );
      assert.deepEqual(await snapshot(writable), before, "the refused copy changed the disk");
    } finally {
      await server.close();
    }

    server = await startTestServer({ roots }); // a restart: the start-up sweep runs
    try {
      assert.equal(
        await readFile(path.join(writable, "mine", name, "notes.txt"), "utf8"),
        userText,
        "a user's folder was deleted by the start-up sweep",
      );
    } finally {
      await server.close();
    }
  });
});
