import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { copyFile } from "../../src/files/tree/copy-file.js";
import { removeStaleTempFiles, sweepMaxDepth } from "../../src/files/write/sweep-temp-files.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { crashedTempName, recordedStagingFolder, scratchDir } from "./write-fixtures.js";

// Review of branch `content` (issue 27 #10): a recursive CopyFile has no depth bound (only
// max_tree_entries), so its staging folder can hold a tree deeper than the start-up sweep's
// sweepMaxDepth (128). A crash mid-copy of such a tree leaves a staging folder the sweep never
// removes: every start reports TOO_DEEP and keeps it (and the bytes under it) for ever.
// Severity: LEAK (disk, minor).

const depth = sweepMaxDepth + 20;

async function chain(at: string): Promise<void> {
  const deepest = path.join(at, ...Array.from({ length: depth }, () => "d"));
  await mkdir(deepest, { recursive: true });
  await writeFile(path.join(deepest, "bottom.txt"), "bottom\n");
}

describe("a crashed copy of a tree deeper than the sweep walks is removed", () => {
  it("a recursive copy makes a tree deeper than the sweep walks", async () => {
    const root = path.join(await scratchDir("review-deep-copy-"), "root");
    await chain(path.join(root, "src"));
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { reservedNamePrefix: ".toolhost-tmp-" });
    const copied = await copyFile(sandbox, { from: "src", to: "dst", recursive: true, maxEntries: 100_000 });
    assert.ok(copied.entriesCopied >= depth, `${copied.entriesCopied} entries`);
  });

  it("its staging folder, left by a crash, is removed by the start-up sweep", async () => {
    const root = path.join(await scratchDir("review-deep-sweep-"), "root");
    const staging = path.join(root, crashedTempName()); // a crashed writer's staging folder, as copyTree names and records it
    await recordedStagingFolder(staging);
    await chain(staging);
    const report = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual(
      await readdir(root),
      [],
      `left behind; failures ${JSON.stringify(report.failures.map((f) => f.code))}`,
    );
  });
});
