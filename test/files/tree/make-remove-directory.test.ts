import assert from "node:assert/strict";
import { mkdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../../src/errors/toolhost-error.js";
import { makeDirectory } from "../../../src/files/tree/make-directory.js";
import { removeDirectory } from "../../../src/files/tree/remove-directory.js";
import { snapshot, writeFixture } from "../write-fixtures.js";

async function reasonOf(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => assert.fail("should have failed"),
    (e: unknown) => e,
  );
  assert.ok(isToolhostError(err), String(err));
  return `${err.reason}: ${err.message}`;
}

describe("MakeDirectory", () => {
  it("creates a directory, says so, and says created=false the second time", async () => {
    const f = await writeFixture();
    assert.deepEqual(await makeDirectory(f.sandbox, { path: "logs" }), { created: true });
    assert.ok((await stat(path.join(f.root, "logs"))).isDirectory());
    assert.deepEqual(await makeDirectory(f.sandbox, { path: "logs/" }), { created: false });
  });

  it("creates parents only when asked, with the mode asked", async () => {
    const f = await writeFixture();
    assert.match(await reasonOf(makeDirectory(f.sandbox, { path: "a/b/c" })), /^NOT_FOUND: .*set parents/);
    assert.deepEqual(await snapshot(f.root), {});
    assert.deepEqual(await makeDirectory(f.sandbox, { path: "a/b/c", parents: true, mode: 0o700 }), { created: true });
    assert.equal((await stat(path.join(f.root, "a/b/c"))).mode & 0o777, 0o700);
  });

  it("refuses a file in the way, a bad mode, a read-only root and a path outside, changing nothing", async () => {
    const f = await writeFixture();
    await writeFile(path.join(f.root, "notes.txt"), "x");
    const before = await snapshot(f.root);
    assert.match(
      await reasonOf(makeDirectory(f.sandbox, { path: "notes.txt" })),
      /^ALREADY_EXISTS: .*'notes.txt' already exists; it is a regular file/,
    );
    assert.match(
      await reasonOf(makeDirectory(f.sandbox, { path: "notes.txt/sub", parents: true })),
      /^NOT_A_DIRECTORY/,
    );
    assert.match(await reasonOf(makeDirectory(f.sandbox, { path: "m", mode: 0o4755 })), /^INVALID_ARGUMENT: mode/);
    assert.match(await reasonOf(makeDirectory(f.sandbox, { path: "../out" })), /^PATH_TRAVERSAL/);
    assert.deepEqual(await snapshot(f.root), before);
    const ro = await writeFixture({ readOnly: true });
    assert.match(await reasonOf(makeDirectory(ro.sandbox, { path: "new" })), /^READ_ONLY/);
    assert.deepEqual(await snapshot(ro.root), {});
  });
});

describe("RemoveDirectory", () => {
  it("removes an empty directory and refuses a non-empty one without recursive", async () => {
    const f = await writeFixture();
    await mkdir(path.join(f.root, "empty"));
    await mkdir(path.join(f.root, "full/sub"), { recursive: true });
    await writeFile(path.join(f.root, "full/sub/a.txt"), "a");
    assert.deepEqual(await removeDirectory(f.sandbox, { path: "empty", serverMaxEntries: 100 }), {
      existed: true,
      removedEntries: 1,
      paths: ["empty"],
      dryRun: false,
    });
    const before = await snapshot(f.root);
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "full", serverMaxEntries: 100 })),
      /^DIRECTORY_NOT_EMPTY: .*set recursive/,
    );
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "full", dryRun: true, serverMaxEntries: 100 })),
      /^DIRECTORY_NOT_EMPTY/,
    );
    assert.deepEqual(await snapshot(f.root), before);
    assert.deepEqual(await removeDirectory(f.sandbox, { path: "missing", serverMaxEntries: 100 }), {
      existed: false,
      removedEntries: 0,
      paths: [],
      dryRun: false,
    });
  });

  it("lists with dry_run, refuses over max_entries, then removes the whole tree, links as links", async () => {
    const f = await writeFixture();
    const outside = await writeFixture();
    await writeFile(path.join(outside.root, "keep.txt"), "keep");
    await mkdir(path.join(f.root, "t/sub"), { recursive: true });
    await writeFile(path.join(f.root, "t/sub/a.txt"), "a");
    await writeFile(path.join(f.root, "t/b.txt"), "b");
    await symlink(outside.root, path.join(f.root, "t/out"));
    const before = await snapshot(f.root);
    const dry = await removeDirectory(f.sandbox, { path: "t", recursive: true, dryRun: true, serverMaxEntries: 100 });
    assert.deepEqual(dry, {
      existed: true,
      removedEntries: 5,
      paths: ["t/b.txt", "t/out", "t/sub/a.txt", "t/sub", "t"],
      dryRun: true,
    });
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "t", recursive: true, maxEntries: 3, serverMaxEntries: 100 })),
      /^TOO_LARGE: .*more than 3 entries/,
    );
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "t", recursive: true, serverMaxEntries: 2 })),
      /^TOO_LARGE/,
    );
    assert.deepEqual(await snapshot(f.root), before);
    const done = await removeDirectory(f.sandbox, { path: "t", recursive: true, serverMaxEntries: 100 });
    assert.equal(done.removedEntries, 5);
    assert.deepEqual(await snapshot(f.root), {});
    assert.deepEqual(await snapshot(outside.root), {
      "keep.txt": `file 644 ${Buffer.from("keep").toString("base64")}`,
    });
  });

  it("refuses a root, a file, a symlink, a read-only root, changing nothing", async () => {
    const f = await writeFixture();
    await mkdir(path.join(f.root, "d"));
    await writeFile(path.join(f.root, "f.txt"), "f");
    await symlink("d", path.join(f.root, "link"));
    const before = await snapshot(f.root);
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "/", recursive: true, serverMaxEntries: 100 })),
      /^(NOT_A_REGULAR_FILE|PATH_TRAVERSAL)/,
    );
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: f.root, recursive: true, serverMaxEntries: 100 })),
      /root directory itself/,
    );
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "f.txt", serverMaxEntries: 100 })),
      /^NOT_A_DIRECTORY: .*regular file/,
    );
    assert.match(
      await reasonOf(removeDirectory(f.sandbox, { path: "link", recursive: true, serverMaxEntries: 100 })),
      /^NOT_A_DIRECTORY: .*symbolic link.*DeleteFile removes a link/,
    );
    assert.deepEqual(await snapshot(f.root), before);
    const ro = await writeFixture({ readOnly: true });
    await mkdir(path.join(ro.root, "d"));
    assert.match(await reasonOf(removeDirectory(ro.sandbox, { path: "d", serverMaxEntries: 100 })), /^READ_ONLY/);
  });
});
