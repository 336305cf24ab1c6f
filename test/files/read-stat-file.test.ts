import assert from "node:assert/strict";
import { chmod, mkdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { statPath } from "../../src/files/stat-path.js";
import { expectToolhostError, makeFifo, snapshotTree } from "../sandbox/sandbox-fixture.js";
import { readRoot, sha256 } from "./read-helpers.js";

describe("StatFile", () => {
  it("describes a text file, with its hash on request", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "notes.txt"), "hello\n");
    await chmod(path.join(root, "notes.txt"), 0o600);
    const st = await stat(path.join(root, "notes.txt"));
    assert.deepEqual(await statPath(sandbox, { path: "notes.txt", includeSha256: true }), {
      path: "notes.txt",
      type: "file",
      size: 6,
      mode: 0o600,
      modified: st.mtime,
      sha256: sha256("hello\n"),
      binary: false,
      symlink: false,
      hardLinked: false,
    });
    assert.equal((await statPath(sandbox, { path: "notes.txt" })).sha256, "", "no hash unless asked");
  });

  it("says a binary file is binary", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "image.png"), Buffer.from("89504e470d0a1a0a", "hex"));
    assert.equal((await statPath(sandbox, { path: "image.png" })).binary, true);
  });

  it("hashes a file larger than one hashing chunk", async () => {
    const { root, sandbox } = await readRoot();
    const content = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61);
    await writeFile(path.join(root, "big.txt"), content);
    assert.equal((await statPath(sandbox, { path: "big.txt", includeSha256: true })).sha256, sha256(content));
  });

  it("describes a directory with size 0", async () => {
    const { root, sandbox } = await readRoot();
    await mkdir(path.join(root, "dir"));
    const result = await statPath(sandbox, { path: "dir", includeSha256: true });
    assert.equal(result.type, "directory");
    assert.equal(result.size, 0);
    assert.equal(result.sha256, "");
  });

  it("follows an in-root symlink and says the path is one", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "target.txt"), "12345");
    await symlink("target.txt", path.join(root, "link.txt"));
    const result = await statPath(sandbox, { path: "link.txt" });
    assert.equal(result.type, "file");
    assert.equal(result.size, 5);
    assert.equal(result.symlink, true);
  });

  it("describes a FIFO as other without opening it", async (t) => {
    const { root, sandbox } = await readRoot();
    const skip = makeFifo(path.join(root, "pipe"));
    if (skip !== undefined) {
      t.skip(skip);
      return;
    }
    const result = await statPath(sandbox, { path: "pipe" });
    assert.equal(result.type, "other");
    assert.equal(result.size, 0);
  });

  it("refuses missing, empty and escaping paths, changing nothing", async () => {
    const { root, sandbox } = await readRoot();
    await symlink("/etc/passwd", path.join(root, "out"));
    const before = await snapshotTree(root);
    await expectToolhostError(() => statPath(sandbox, { path: "ghost.txt" }), "NOT_FOUND", ["not found", "ghost.txt"]);
    await expectToolhostError(() => statPath(sandbox, { path: "" }), "EMPTY_PATH", ["must not be empty"]);
    await expectToolhostError(() => statPath(sandbox, { path: "../x" }), "PATH_TRAVERSAL", ["traversal", "../x"]);
    await expectToolhostError(() => statPath(sandbox, { path: "out" }), "PATH_TRAVERSAL", ["traversal", "out"]);
    assert.deepEqual(await snapshotTree(root), before);
  });
});
