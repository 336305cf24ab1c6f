// Review (edit5): atomicWrite decides whether the target's own name may be used on the event loop
// (the guard's open, the O_PATH pin, the rename) with isMountPoint(target), a lookup of the real
// path string in a copy of /proc/self/mountinfo refreshed at most every 5 s. A folder holding a
// file mounted from elsewhere (a stand-in for NFS/FUSE, where a hung server blocks the caller) that
// is renamed (MoveFile, another process) keeps its mount, now under a new path the stale table does
// not list: the edit then makes those calls on the event loop. The folder itself passes as local
// (same st_dev as the root), so nothing else catches it. Needs CAP_SYS_ADMIN; skipped otherwise.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { editFile } from "../../src/files/edit/edit-file.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { bindMountedFile } from "../support/bind-mounted-file.js";

const mount = bindMountedFile("edit-moved-mount-", "b/x.txt");
const { root } = mount;

describe("an edit of a mounted file whose folder was renamed less than 5 s ago", () => {
  it("still keeps the calls on the mounted name off the event loop", async (t) => {
    if (mount.at === undefined) return t.skip("cannot bind-mount here");
    // The folder is renamed (as MoveFile would): the mount moves with it, to root/a/x.txt.
    fs.renameSync(path.join(root, "b"), path.join(root, "a"));
    mount.at = path.join(root, "a", "x.txt");
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { readOnly: false });
    const calls: string[] = [];
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      openCurrent: (content, dir, name, shown, inPlace) => (
        calls.push(`openCurrent inPlace=${String(inPlace)}`), nodeFsOps.openCurrent(content, dir, name, shown, inPlace)
      ),
      rename: (from, to, inPlace) => (
        calls.push(`rename inPlace=${String(inPlace)}`), nodeFsOps.rename(from, to, inPlace)
      ),
    };
    await editFile(sandbox, {
      path: "a/x.txt",
      edits: [{ kind: "replace", oldText: "alpha", newText: "omega" }],
      maxEditBytes: 1 << 20,
      fsOps: ops,
    }).catch(() => undefined);
    assert.deepEqual(
      calls,
      ["openCurrent inPlace=false", "rename inPlace=false"],
      "calls on a mount point were made on the event loop",
    );
  });
});
