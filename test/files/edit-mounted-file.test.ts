// A file mounted over a name inside a local root (a bind mount; a stand-in for one from NFS or
// FUSE, where a hung server would block the event loop): an edit's calls on that name (the commit
// guard's open, the rename) are not made on the event loop. Needs CAP_SYS_ADMIN; skipped otherwise.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs, { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { editFile } from "../../src/files/edit/edit-file.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { reloadMountPoints } from "../../src/sandbox/mount-points.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "edit-mounted-file-"));
const root = path.join(dir, "root");
const source = path.join(dir, "source.txt");
const target = path.join(root, "mounted.txt");
let mounted = false;

before(() => {
  fs.mkdirSync(root);
  writeFileSync(source, "alpha\n");
  writeFileSync(target, "placeholder\n");
  try {
    execFileSync("mount", ["--bind", source, target], { stdio: "ignore" });
    mounted = true;
    reloadMountPoints();
  } catch {
    mounted = false;
  }
});

after(() => {
  if (mounted) spawnSync("umount", ["-l", target], { stdio: "ignore" }); // lazy: whatever the test left open
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("an edit of a file mounted over a name in a local root", () => {
  it("opens the file it would replace and renames through the thread pool, and changes nothing when the rename is refused", async (t) => {
    if (!mounted) return t.skip("cannot bind-mount here");
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { readOnly: false });
    const calls: string[] = [];
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      openCurrent: (file, inPlace) => (calls.push(`openCurrent ${String(inPlace)}`), nodeFsOps.openCurrent(file, inPlace)),
      rename: (from, to, inPlace) => (calls.push(`rename ${String(inPlace)}`), nodeFsOps.rename(from, to, inPlace)),
    };
    const outcome = await editFile(sandbox, { path: "mounted.txt", edits: [{ kind: "replace", oldText: "alpha", newText: "omega" }], maxEditBytes: 1 << 20, fsOps: ops }).then(
      () => "applied",
      (err: { reason?: string }) => err.reason ?? String(err),
    );
    assert.deepEqual(calls, ["openCurrent false", "rename false"]);
    assert.notEqual(outcome, "applied", "a mount point cannot be renamed over (EBUSY)");
    assert.equal(readFileSync(source, "utf8"), "alpha\n");
    assert.deepEqual(fs.readdirSync(root), ["mounted.txt"], "no temporary or lock file left");
  });
});
