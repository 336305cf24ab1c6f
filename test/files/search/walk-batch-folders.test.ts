import assert from "node:assert/strict";
import { closeSync } from "node:fs";
import { describe, it } from "node:test";
import { HeldDirectory } from "../../../src/files/search/held-directory.js";
import { fileNames } from "../../../src/files/search/match-job.js";
import { SyncWalk } from "../../../src/files/search/walk/sync-walk.js";
import { walkBatchFiles, walkBatchFolders, type WalkBatch } from "../../../src/files/search/walk/walk-protocol.js";
import { searchRoot } from "./search-fixture.js";

describe("SyncWalk: the descriptors of one batch", () => {
  it(`refers to at most ${walkBatchFolders} folders per batch (files' and closed ones), whatever the tree's shape`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`flat/f${String(i).padStart(3, "0")}/x.txt`] = "x\n"; // a file per folder
    for (let i = 0; i < 300; i++) files[`wide/w${String(i).padStart(3, "0")}.txt`] = "x\n"; // one folder
    for (let level = 1; level <= 50; level++) files[`${"deep/d".repeat(level)}/y.txt`] = "x\n"; // a chain
    for (let i = 0; i < 40; i++)
      for (let j = 0; j < 5; j++) files[`mixed/m${String(i).padStart(2, "0")}/${j}.txt`] = "x\n";
    const { root, sandbox } = await searchRoot(files);
    const top = (await HeldDirectory.openVerified(
      root,
      sandbox.roots.map((r) => r.path),
    ))!;
    const batches: WalkBatch[] = [];
    const walked: string[] = [];
    // The receiver answers each batch at once: it closes what the batch hands over.
    const walk = new SyncWalk(
      {
        rules: sandbox.contentRules,
        include: undefined,
        exclude: undefined,
        useIgnoreFiles: false,
        includeHidden: false,
        inherited: [],
      },
      (batch) => {
        batches.push(batch);
        const names = fileNames(batch.files);
        batch.files.fds.forEach((fd, i) =>
          walked.push(`${batch.folderPaths[batch.folderFds.indexOf(fd)]}/${names[i]}`),
        );
        for (const fd of batch.close) closeSync(fd);
      },
      () => false,
    );
    try {
      const { close, error } = walk.run(top.fd);
      assert.equal(error, undefined);
      assert.deepEqual(close, []);
    } finally {
      await top.release();
    }
    assert.deepEqual(walked.sort(), Object.keys(files).sort(), "every file once");
    for (const [i, batch] of batches.entries()) {
      const referred = new Set([...batch.folderFds, ...batch.close]).size;
      assert.ok(referred <= walkBatchFolders, `batch ${i} refers to ${referred} folder descriptors`);
      assert.ok(batch.files.fds.length <= walkBatchFiles);
    }
    // The bound splits only batches of many folders: the one folder of 300 files fills them.
    assert.ok(
      batches.some((b) => b.files.fds.length === walkBatchFiles),
      "full batches of one folder's files",
    );
  });
});
