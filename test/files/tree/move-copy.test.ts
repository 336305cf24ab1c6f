import assert from "node:assert/strict";
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../../src/files/content-hash.js";
import { copyFile } from "../../../src/files/tree/copy-file.js";
import { moveFile } from "../../../src/files/tree/move-file.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import { snapshot, writeFixture } from "../write-fixtures.js";

async function reasonOf(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => assert.fail("should have failed"),
    (e: unknown) => e,
  );
  assert.ok(isToolhostError(err), String(err));
  return `${err.reason}: ${err.message}`;
}

describe("MoveFile", () => {
  it("moves a file, a link as a link and a directory, and returns the file's sha256", async () => {
    const f = await writeFixture();
    await writeFile(path.join(f.root, "a.txt"), "hello");
    await symlink("a-moved.txt", path.join(f.root, "l"));
    await mkdir(path.join(f.root, "dir/sub"), { recursive: true });
    assert.deepEqual(await moveFile(f.sandbox, { from: "a.txt", to: "a-moved.txt" }), {
      type: "file",
      sha256: sha256Hex("hello"),
      overwritten: false,
      acrossFilesystems: false,
    });
    assert.equal((await moveFile(f.sandbox, { from: "l", to: "l2" })).type, "symlink");
    assert.equal(await readlink(path.join(f.root, "l2")), "a-moved.txt");
    assert.equal(
      (await moveFile(f.sandbox, { from: "dir/", to: "new/place/dir", createParents: true })).type,
      "directory",
    );
    assert.deepEqual(Object.keys(await snapshot(f.root)).sort(), [
      "a-moved.txt",
      "l2",
      "new",
      "new/place",
      "new/place/dir",
      "new/place/dir/sub",
    ]);
  });

  it("refuses an existing target without overwrite and replaces it with overwrite", async () => {
    const f = await writeFixture();
    await writeFile(path.join(f.root, "a"), "A");
    await writeFile(path.join(f.root, "b"), "B");
    await mkdir(path.join(f.root, "d1"));
    await mkdir(path.join(f.root, "d2"));
    const before = await snapshot(f.root);
    assert.match(
      await reasonOf(moveFile(f.sandbox, { from: "a", to: "b" })),
      /^ALREADY_EXISTS: .*'b' already exists; set overwrite/,
    );
    assert.match(await reasonOf(moveFile(f.sandbox, { from: "d1", to: "d2" })), /^ALREADY_EXISTS/);
    assert.match(
      await reasonOf(moveFile(f.sandbox, { from: "a", to: "d2", overwrite: true })),
      /^ALREADY_EXISTS: .*directory, which a regular file cannot replace/,
    );
    assert.match(
      await reasonOf(moveFile(f.sandbox, { from: "a", to: "x", ifSha256: sha256Hex("nope") })),
      /^PRECONDITION_FAILED/,
    );
    assert.deepEqual(await snapshot(f.root), before);
    assert.equal(
      (await moveFile(f.sandbox, { from: "a", to: "b", overwrite: true, ifSha256: sha256Hex("A") })).overwritten,
      true,
    );
    assert.equal(await readFile(path.join(f.root, "b"), "utf8"), "A");
  });

  it("refuses a root, a directory into itself, a missing source or parent, read-only roots and paths outside", async () => {
    const f = await writeFixture();
    const ro = await writeFixture({ readOnly: true });
    const sandbox = await createSandbox([
      { path: f.root, readOnly: false },
      { path: ro.root, readOnly: true },
    ]);
    await mkdir(path.join(f.root, "d/e"), { recursive: true });
    await writeFile(path.join(f.root, "f"), "F");
    await writeFile(path.join(ro.root, "r"), "R");
    const before = [await snapshot(f.root), await snapshot(ro.root)];
    assert.match(await reasonOf(moveFile(sandbox, { from: f.root, to: "x" })), /root directory itself/);
    assert.match(
      await reasonOf(moveFile(sandbox, { from: "d", to: "d/e/d" })),
      /^INVALID_ARGUMENT: .*inside the source/,
    );
    assert.match(await reasonOf(moveFile(sandbox, { from: "nope", to: "x" })), /^NOT_FOUND: .*'nope' not found/);
    assert.match(await reasonOf(moveFile(sandbox, { from: "f", to: "no/such/f" })), /^NOT_FOUND: .*set create_parents/);
    assert.match(await reasonOf(moveFile(sandbox, { from: path.join(ro.root, "r"), to: "r" })), /^READ_ONLY/);
    assert.match(await reasonOf(moveFile(sandbox, { from: "f", to: path.join(ro.root, "f") })), /^READ_ONLY/);
    assert.match(await reasonOf(moveFile(sandbox, { from: "f", to: "../f" })), /^PATH_TRAVERSAL/);
    assert.deepEqual([await snapshot(f.root), await snapshot(ro.root)], before);
  });

  it("across filesystems copies a file atomically then removes the source, and refuses a directory", async (t) => {
    const shm = await mkdtemp("/dev/shm/toolhost-move-").catch(() => undefined);
    if (shm === undefined) return t.skip("no /dev/shm");
    try {
      const f = await writeFixture();
      const sandbox = await createSandbox([
        { path: f.root, readOnly: false },
        { path: shm, readOnly: false },
      ]);
      await writeFile(path.join(f.root, "big.bin"), Buffer.alloc(300_000, 7), { mode: 0o640 });
      await mkdir(path.join(f.root, "dir"));
      const result = await moveFile(sandbox, { from: "big.bin", to: path.join(shm, "big.bin") });
      assert.deepEqual(result, {
        type: "file",
        sha256: sha256Hex(Buffer.alloc(300_000, 7)),
        overwritten: false,
        acrossFilesystems: true,
      });
      assert.equal((await stat(path.join(shm, "big.bin"))).mode & 0o777, 0o640);
      await assert.rejects(lstat(path.join(f.root, "big.bin")));
      assert.match(
        await reasonOf(moveFile(sandbox, { from: "dir", to: path.join(shm, "dir") })),
        /^INVALID_ARGUMENT: .*different filesystems.*CopyFile/,
      );
      assert.ok((await stat(path.join(f.root, "dir"))).isDirectory());
      assert.deepEqual(Object.keys(await snapshot(shm)), ["big.bin"]);
    } finally {
      await rm(shm, { recursive: true, force: true });
    }
  });
});

describe("CopyFile", () => {
  it("copies a file atomically, keeping the mode when asked, refusing an existing target unless overwrite", async () => {
    const f = await writeFixture();
    await writeFile(path.join(f.root, "a.sh"), "#!/bin/sh\n", { mode: 0o750 });
    const copied = await copyFile(f.sandbox, { from: "a.sh", to: "b.sh", maxEntries: 100 });
    assert.deepEqual(copied, {
      type: "file",
      sha256: sha256Hex("#!/bin/sh\n"),
      bytesCopied: 10,
      entriesCopied: 1,
      overwritten: false,
    });
    assert.equal((await stat(path.join(f.root, "b.sh"))).mode & 0o777, 0o644 & ~process.umask());
    await copyFile(f.sandbox, { from: "a.sh", to: "c.sh", keepMode: true, maxEntries: 100 });
    assert.equal((await stat(path.join(f.root, "c.sh"))).mode & 0o777, 0o750);
    await writeFile(path.join(f.root, "b.sh"), "other");
    const before = await snapshot(f.root);
    assert.match(
      await reasonOf(copyFile(f.sandbox, { from: "a.sh", to: "b.sh", maxEntries: 100 })),
      /^ALREADY_EXISTS: .*set overwrite/,
    );
    assert.deepEqual(await snapshot(f.root), before);
    assert.equal(
      (await copyFile(f.sandbox, { from: "a.sh", to: "b.sh", overwrite: true, maxEntries: 100 })).overwritten,
      true,
    );
    assert.equal(await readFile(path.join(f.root, "b.sh"), "utf8"), "#!/bin/sh\n");
  });

  it("copies a directory tree with recursive, links as links, from a read-only root", async () => {
    const f = await writeFixture();
    const ro = await writeFixture({ readOnly: true });
    const sandbox = await createSandbox([
      { path: f.root, readOnly: false },
      { path: ro.root, readOnly: true },
    ]);
    await mkdir(path.join(ro.root, "tree/sub"), { recursive: true });
    await writeFile(path.join(ro.root, "tree/sub/a.txt"), "a");
    await writeFile(path.join(ro.root, "tree/b.txt"), "bb");
    await symlink("/etc/passwd", path.join(ro.root, "tree/link"));
    const src = path.join(ro.root, "tree");
    assert.match(
      await reasonOf(copyFile(sandbox, { from: src, to: "copy", maxEntries: 100 })),
      /^NOT_A_REGULAR_FILE: .*set recursive/,
    );
    assert.match(
      await reasonOf(copyFile(sandbox, { from: src, to: "copy", recursive: true, maxEntries: 3 })),
      /^TOO_LARGE/,
    );
    assert.deepEqual(await snapshot(f.root), {}, "nothing left after a refused copy");
    const result = await copyFile(sandbox, { from: src, to: "copy", recursive: true, maxEntries: 100 });
    assert.deepEqual(result, { type: "directory", sha256: "", bytesCopied: 3, entriesCopied: 5, overwritten: false });
    const copy = await snapshot(path.join(f.root, "copy"));
    assert.deepEqual(Object.keys(copy), ["b.txt", "link", "sub", "sub/a.txt"]);
    assert.equal(copy["link"], "link -> /etc/passwd");
    assert.match(
      await reasonOf(copyFile(sandbox, { from: src, to: "copy", recursive: true, overwrite: true, maxEntries: 100 })),
      /^ALREADY_EXISTS: .*never merges/,
    );
    assert.match(
      await reasonOf(copyFile(sandbox, { from: "copy", to: "copy/inner", recursive: true, maxEntries: 100 })),
      /^INVALID_ARGUMENT: .*inside the source/,
    );
    assert.match(
      await reasonOf(copyFile(sandbox, { from: "copy/b.txt", to: path.join(ro.root, "x"), maxEntries: 100 })),
      /^READ_ONLY/,
    );
    assert.match(await reasonOf(copyFile(sandbox, { from: "../x", to: "y", maxEntries: 100 })), /^PATH_TRAVERSAL/);
  });
});
