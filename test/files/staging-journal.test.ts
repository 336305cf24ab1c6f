import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { copyFile } from "../../src/files/tree/copy-file.js";
import { readStagingRecords, stagingJournalDir } from "../../src/files/write/staging-journal.js";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { crashedTempName, recordedStagingFolder, scratchDir } from "./write-fixtures.js";

// The start-up sweep removes a staging folder only when the staging journal records it, with the
// same device and inode for the folder and the folder it lies in; a name alone deletes nothing.

async function recordsFor(root: string): Promise<string[]> {
  const all = await readStagingRecords(stagingJournalDir()!);
  return all.flatMap(({ record }) =>
    record !== undefined && record.parent.startsWith(root) ? [path.join(record.parent, record.name)] : [],
  );
}

describe("the staging journal", () => {
  it("a recursive copy records its staging folder only while it runs", async () => {
    const root = path.join(await scratchDir("journal-copy-"), "root");
    await mkdir(path.join(root, "src", "sub"), { recursive: true });
    await writeFile(path.join(root, "src", "sub", "f.txt"), "f\n");
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { reservedNamePrefix: ".toolhost-tmp-" });
    await copyFile(sandbox, { from: "src", to: "dst", recursive: true, maxEntries: 100 });
    assert.deepEqual(await recordsFor(root), [], "a placed copy leaves no record");
    await writeFile(path.join(root, "src", "sub", crashedTempName()), "x"); // refused: reserved name in the tree
    await assert.rejects(copyFile(sandbox, { from: "src", to: "dst2", recursive: true, maxEntries: 100 }), {
      reason: "INVALID_PATH",
    });
    assert.deepEqual(await recordsFor(root), [], "a discarded copy leaves no record");
    assert.deepEqual((await readdir(root)).sort(), ["dst", "src"]);
  });

  it("keeps a folder that took a recorded folder's name (another inode) and drops the record", async () => {
    const root = path.join(await scratchDir("journal-swapped-"), "root");
    const name = crashedTempName();
    await recordedStagingFolder(path.join(root, name));
    await rename(path.join(root, name), path.join(root, "moved-away"));
    await mkdir(path.join(root, name));
    await writeFile(path.join(root, name, "user.txt"), "mine\n");
    const report = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual(report.removed, []);
    assert.deepEqual(report.unrecorded, [path.join(root, name)], "reported for the log, not removed");
    assert.equal(await readFile(path.join(root, name, "user.txt"), "utf8"), "mine\n");
    assert.deepEqual(await recordsFor(root), [], "the stale record is dropped");
  });

  it("without a journal leaves every folder and reports the stale ones", async () => {
    const root = path.join(await scratchDir("journal-none-"), "root");
    const name = crashedTempName();
    await recordedStagingFolder(path.join(root, name));
    const report = await removeStaleTempFiles([{ path: root }], { journalDir: undefined });
    assert.deepEqual(report.removed, []);
    assert.deepEqual(report.unrecorded, [path.join(root, name)]);
    assert.deepEqual(await readdir(root), [name]);
    assert.equal((await removeStaleTempFiles([{ path: root }])).removed.length, 1, "with the journal it goes");
  });

  it("does not trust a journal inside a root (a client could write it)", async () => {
    const root = path.join(await scratchDir("journal-in-root-"), "root");
    const name = crashedTempName();
    await recordedStagingFolder(path.join(root, name));
    const report = await removeStaleTempFiles([{ path: path.dirname(stagingJournalDir()!) }, { path: root }]);
    assert.deepEqual(report.removed, []);
    assert.deepEqual(report.failures.filter((f) => f.code === "JOURNAL_IN_ROOT").length, 1);
    assert.deepEqual(await readdir(root), [name]);
  });
});
