import assert from "node:assert/strict";
import { access, lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { deleteFile } from "../../src/files/delete-file.js";
import { nodeFsOps } from "../../src/files/write/fs-ops.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

async function gone(file: string): Promise<boolean> {
  return access(file).then(
    () => false,
    () => true,
  );
}

describe("deleteFile", () => {
  it("removes an existing file and says it existed", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "doomed.txt"), "goodbye");
    assert.deepEqual(await deleteFile(sandbox, { path: "doomed.txt" }), { existed: true });
    assert.ok(await gone(path.join(root, "doomed.txt")));
  });

  it("reports existed false for a missing file", async () => {
    const { sandbox } = await writeFixture();
    assert.deepEqual(await deleteFile(sandbox, { path: "ghost.txt" }), { existed: false });
  });

  it("refuses a directory as non-file, deleting nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await mkdir(path.join(root, "mydir"));
    await writeFile(path.join(root, "mydir/inner.txt"), "keep");
    const before = await snapshot(root);
    await assert.rejects(deleteFile(sandbox, { path: "mydir" }), (err: unknown) => {
      assert.ok(isToolhostError(err, "NOT_A_REGULAR_FILE"));
      assert.equal(
        err.message,
        "Cannot delete non-file path 'mydir': it is a directory; DeleteFile removes files only, so nothing was deleted.",
      );
      return true;
    });
    assert.deepEqual(await snapshot(root), before);
  });

  it("deletes a symlink inside the roots, not its target", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "target.txt"), "stays");
    await symlink("target.txt", path.join(root, "link.txt"));
    assert.deepEqual(await deleteFile(sandbox, { path: "link.txt" }), { existed: true });
    await assert.rejects(lstat(path.join(root, "link.txt")), { code: "ENOENT" });
    assert.equal(await readFile(path.join(root, "target.txt"), "utf8"), "stays");
  });

  it("honours if_sha256, naming both hashes when it fails", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "g.txt"), "v1");
    const before = await snapshot(root);
    await assert.rejects(deleteFile(sandbox, { path: "g.txt", ifSha256: sha256Hex("v0") }), (err: unknown) => {
      assert.ok(isToolhostError(err, "PRECONDITION_FAILED"));
      assert.ok(err.message.includes(sha256Hex("v0")) && err.message.includes(sha256Hex("v1")), err.message);
      return true;
    });
    await assert.rejects(
      deleteFile(sandbox, { path: "absent.txt", ifSha256: sha256Hex("v0") }),
      (err: unknown) =>
        isToolhostError(err, "PRECONDITION_FAILED") && /sha256 none \(the file does not exist\)/.test(err.message),
    );
    assert.deepEqual(await snapshot(root), before);
    assert.deepEqual(await deleteFile(sandbox, { path: "g.txt", ifSha256: sha256Hex("v1") }), { existed: true });
  });

  it("refuses traversal, empty paths and read-only roots, deleting nothing", async () => {
    const outside = await writeFixture();
    await writeFile(path.join(outside.root, "important"), "precious");
    const { root, sandbox } = await writeFixture();
    const relative = path.relative(root, path.join(outside.root, "important"));
    await assert.rejects(
      deleteFile(sandbox, { path: relative }),
      (err: unknown) =>
        isToolhostError(err, "PATH_TRAVERSAL") && err.message.includes("traversal") && err.message.includes(relative),
    );
    await assert.rejects(deleteFile(sandbox, { path: "" }), (err: unknown) => isToolhostError(err, "EMPTY_PATH"));
    assert.equal(await readFile(path.join(outside.root, "important"), "utf8"), "precious");
    for (const options of [{ readOnly: true }, { serverReadOnly: true }]) {
      const ro = await writeFixture(options);
      await writeFile(path.join(ro.root, "keep.txt"), "keep");
      await assert.rejects(
        deleteFile(ro.sandbox, { path: "keep.txt" }),
        (err: unknown) => isToolhostError(err, "READ_ONLY") && /read-only/.test(err.message),
      );
      assert.equal(await readFile(path.join(ro.root, "keep.txt"), "utf8"), "keep");
    }
  });

  it("reports a failed directory sync after the unlink instead of claiming success", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "x");
    const fsOps = {
      ...nodeFsOps,
      fsyncDir: async () => Promise.reject(Object.assign(new Error("injected"), { code: "EIO" })),
    };
    await assert.rejects(deleteFile(sandbox, { path: "d.txt", fsOps }), (err: unknown) => {
      assert.ok(isToolhostError(err, "IO_ERROR"));
      assert.equal(
        err.message,
        "'d.txt' was deleted, but syncing its directory failed (EIO), so the change may not survive a crash; check the disk.",
      );
      return true;
    });
  });
});
