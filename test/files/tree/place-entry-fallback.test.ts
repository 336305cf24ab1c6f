import assert from "node:assert/strict";
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { copyFile } from "../../../src/files/tree/copy-file.js";
import { moveFile } from "../../../src/files/tree/move-file.js";
import { nodeTreeFsOps, type TreeFsOps } from "../../../src/files/tree/tree-fs-ops.js";
import { fsAt } from "../../../src/sandbox/native/fs-at.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import { scratchDir } from "../write-fixtures.js";

// MoveFile and CopyFile without overwrite place an entry with renameat2(RENAME_NOREPLACE) (one
// atomic step); where it is refused (EINVAL/ENOSYS: no flag in the kernel or filesystem) they take
// the two steps that never replace anything either. Both paths give the same answers.

function counting(noReplace: boolean): { ops: TreeFsOps; calls: string[] } {
  const calls: string[] = [];
  const ops: TreeFsOps = {
    ...nodeTreeFsOps,
    renameNoReplace: async (from, to) => {
      calls.push("renameNoReplace");
      return noReplace ? nodeTreeFsOps.renameNoReplace(from, to) : false;
    },
    link: async (a, b) => {
      calls.push("link");
      return nodeTreeFsOps.link(a, b);
    },
  };
  return { ops, calls };
}

async function fixture(): Promise<{ root: string; sandbox: Awaited<ReturnType<typeof createSandbox>> }> {
  const root = path.join(await scratchDir("place-entry-"), "root");
  await mkdir(path.join(root, "src", "sub"), { recursive: true });
  await writeFile(path.join(root, "src", "sub", "f.txt"), "f\n");
  await writeFile(path.join(root, "a.txt"), "a\n");
  await writeFile(path.join(root, "taken.txt"), "taken\n");
  await mkdir(path.join(root, "taken-dir"));
  return {
    root,
    sandbox: await createSandbox([{ path: root, readOnly: false }], { reservedNamePrefix: ".toolhost-tmp-" }),
  };
}

describe("placing an entry without overwrite", () => {
  it("the native addon has renameNoReplaceAt, and it refuses a taken name atomically", {
    skip: fsAt === undefined && "no native addon",
  }, async () => {
    const { ops, calls } = counting(true);
    const { root, sandbox } = await fixture();
    await moveFile(sandbox, { from: "a.txt", to: "b.txt", fsOps: ops });
    assert.deepEqual(calls, ["renameNoReplace"], "one step, no link");
    assert.equal((await lstat(path.join(root, "b.txt"))).nlink, 1);
    await assert.rejects(moveFile(sandbox, { from: "b.txt", to: "taken.txt", fsOps: ops }), {
      reason: "ALREADY_EXISTS",
    });
    await assert.rejects(
      copyFile(sandbox, { from: "src", to: "taken-dir", recursive: true, maxEntries: 100, fsOps: ops }),
      { reason: "ALREADY_EXISTS" },
    );
    assert.equal(await readFile(path.join(root, "taken.txt"), "utf8"), "taken\n");
    assert.deepEqual(await readdir(path.join(root, "taken-dir")), []);
    assert.deepEqual((await readdir(root)).sort(), ["b.txt", "src", "taken-dir", "taken.txt"]);
  });

  it("falls back to the two steps where RENAME_NOREPLACE is refused, with the same answers", async () => {
    const { ops, calls } = counting(false);
    const { root, sandbox } = await fixture();
    await moveFile(sandbox, { from: "a.txt", to: "b.txt", fsOps: ops });
    assert.deepEqual(calls, ["renameNoReplace", "link"]);
    assert.equal((await lstat(path.join(root, "b.txt"))).nlink, 1);
    await assert.rejects(moveFile(sandbox, { from: "b.txt", to: "taken.txt", fsOps: ops }), {
      reason: "ALREADY_EXISTS",
    });
    await copyFile(sandbox, { from: "src", to: "dst", recursive: true, maxEntries: 100, fsOps: ops });
    await assert.rejects(
      copyFile(sandbox, { from: "src", to: "taken-dir", recursive: true, maxEntries: 100, fsOps: ops }),
      { reason: "ALREADY_EXISTS" },
    );
    assert.equal(await readFile(path.join(root, "dst", "sub", "f.txt"), "utf8"), "f\n");
    assert.deepEqual((await readdir(root)).sort(), ["b.txt", "dst", "src", "taken-dir", "taken.txt"]);
  });
});
