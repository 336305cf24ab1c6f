import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { editFile, type EditFileResult } from "../../src/files/edit/edit-file.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { writeFixture } from "./write-fixtures.js";

const limit = 1 << 20;

describe("EditFile's reply is prepared while the folder's fsync runs", () => {
  it("hands over the result after the rename, while the folder's fsync is still running, and returns only once it is done", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "a\nb\nc\n");
    const events: string[] = [];
    let finishSync!: () => void;
    const fsOps: AtomicFsOps = {
      ...nodeFsOps,
      rename: async (from, to) => {
        await nodeFsOps.rename(from, to);
        events.push("renamed");
      },
      fsyncDir: async (dir) => {
        events.push("folder fsync started");
        await nodeFsOps.fsyncDir(dir);
        await new Promise<void>((resolve) => (finishSync = resolve));
        events.push("folder fsync done");
      },
    };
    let handed: EditFileResult | undefined;
    const editing = editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "b", newText: "B" }],
      maxEditBytes: limit,
      fsOps,
      whileSyncing: (result) => {
        events.push("whileSyncing");
        handed = result;
      },
    }).then((result) => {
      events.push("returned");
      return result;
    });
    for (let i = 0; i < 200 && finishSync === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(
      events,
      ["renamed", "folder fsync started", "whileSyncing"],
      "the result is handed over while the fsync runs, and the edit has not returned",
    );
    finishSync();
    const result = await editing;
    assert.deepEqual(events, ["renamed", "folder fsync started", "whileSyncing", "folder fsync done", "returned"]);
    assert.equal(result, handed, "the edit returns the very result it handed over");
    assert.equal(result.diff, "--- a/d.txt\n+++ b/d.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  });

  it("fails with the folder fsync's error, not the result handed over, when that fsync fails", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "a\nb\nc\n");
    const fsOps: AtomicFsOps = {
      ...nodeFsOps,
      fsyncDir: async () => Promise.reject(Object.assign(new Error("injected"), { code: "EIO" })),
    };
    let handed = 0;
    const err = await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "b", newText: "B" }],
      maxEditBytes: limit,
      fsOps,
      whileSyncing: () => handed++,
    }).then(
      () => assert.fail("the edit must fail"),
      (e: unknown) => e,
    );
    assert.ok(isToolhostError(err, "IO_ERROR"), String(err));
    assert.equal(
      err.message,
      "'d.txt' now holds the new content, but syncing its directory failed (EIO), so the change may not survive a crash; check the disk before relying on it.",
    );
    assert.equal(handed, 1);
    assert.equal(await readFile(path.join(root, "d.txt"), "utf8"), "a\nB\nc\n");
  });

  it("an edit whose whileSyncing throws still answers with its result", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "a\nb\nc\n");
    const result = await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "b", newText: "B" }],
      maxEditBytes: limit,
      whileSyncing: () => {
        throw new Error("no head start");
      },
    });
    assert.equal(result.applied, true);
    assert.equal(await readFile(path.join(root, "d.txt"), "utf8"), "a\nB\nc\n");
  });

  it("a dry run and an edit that changes nothing hand nothing over", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "a\nb\nc\n");
    let handed = 0;
    await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "b", newText: "B" }],
      maxEditBytes: limit,
      dryRun: true,
      whileSyncing: () => handed++,
    });
    await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "b", newText: "b" }],
      maxEditBytes: limit,
      whileSyncing: () => handed++,
    });
    assert.equal(handed, 0);
  });
});
