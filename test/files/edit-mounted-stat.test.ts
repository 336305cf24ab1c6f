// Review (edit5, 5cd4aa6): for a file mounted over the target's name, the guard's open, the pin and
// the rename go to the thread pool, but atomicWrite's statTarget (lstat of that same name, on the
// way to every commit) is still made on the event loop: nodeFsOps.statTarget is lstatSync with no
// in-place switch. On NFS/FUSE that lstat can wait on the server (attribute revalidation) like the
// open would. Needs CAP_SYS_ADMIN; skipped otherwise.
import assert from "node:assert/strict";
import { createHook } from "node:async_hooks";
import { describe, it } from "node:test";
import { editFile } from "../../src/files/edit/edit-file.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { bindMountedFile } from "../support/bind-mounted-file.js";

const mount = bindMountedFile("edit-mounted-stat-");
const { root } = mount;

describe("an edit of a file mounted over a name in a local root", () => {
  it("does not lstat the mounted name on the event loop either", async (t) => {
    if (mount.at === undefined) return t.skip("cannot bind-mount here");
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { readOnly: false });
    const stats: string[] = [];
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      statTarget: async (file, inPlace) => {
        let pooled = 0;
        const hook = createHook({
          init: (_id, type) => void (type === "FSREQCALLBACK" || type === "FSREQPROMISE" ? pooled++ : undefined),
        }).enable();
        try {
          return await nodeFsOps.statTarget(file, inPlace);
        } finally {
          hook.disable();
          stats.push(pooled > 0 ? "thread pool" : "event loop");
        }
      },
    };
    await editFile(sandbox, {
      path: "mounted.txt",
      edits: [{ kind: "replace", oldText: "alpha", newText: "omega" }],
      maxEditBytes: 1 << 20,
      fsOps: ops,
    }).catch(() => undefined);
    assert.deepEqual(stats, ["thread pool"], "the mounted name was lstat'ed on the event loop");
  });
});
