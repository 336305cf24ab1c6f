// A file mounted over a name inside a local root (a bind mount; a stand-in for one from NFS or
// FUSE, where a hung server would block the event loop): an edit's calls on that name (the commit
// guard's open, the rename) are not made on the event loop. Needs CAP_SYS_ADMIN; skipped otherwise.
import assert from "node:assert/strict";
import fs, { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { editFile } from "../../src/files/edit/edit-file.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { bindMountedFile } from "../support/bind-mounted-file.js";

const mount = bindMountedFile("edit-mounted-file-");
const { root, source } = mount;

describe("an edit of a file mounted over a name in a local root", () => {
  it("opens the file it would replace and renames through the thread pool, and changes nothing when the rename is refused", async (t) => {
    if (mount.at === undefined) return t.skip("cannot bind-mount here");
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { readOnly: false });
    const calls: string[] = [];
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      openCurrent: (content, dir, name, shown, inPlace) => (
        calls.push(`openCurrent ${String(inPlace)}`), nodeFsOps.openCurrent(content, dir, name, shown, inPlace)
      ),
      rename: (from, to, inPlace) => (calls.push(`rename ${String(inPlace)}`), nodeFsOps.rename(from, to, inPlace)),
    };
    const outcome = await editFile(sandbox, {
      path: "mounted.txt",
      edits: [{ kind: "replace", oldText: "alpha", newText: "omega" }],
      maxEditBytes: 1 << 20,
      fsOps: ops,
    }).then(
      () => "applied",
      (err: { reason?: string }) => err.reason ?? String(err),
    );
    assert.deepEqual(calls, ["openCurrent false", "rename false"]);
    assert.notEqual(outcome, "applied", "a mount point cannot be renamed over (EBUSY)");
    assert.equal(readFileSync(source, "utf8"), "alpha\n");
    assert.deepEqual(fs.readdirSync(root), ["mounted.txt"], "no temporary or lock file left");
  });
});
