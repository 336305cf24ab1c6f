import assert from "node:assert/strict";
import { mkdir, readdir, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { isTempFileName, tempFileName, tempFilePrefix } from "../../src/files/write/temp-files.js";
import { crashedTempName, scratchDir } from "./write-fixtures.js";

async function tempDir(): Promise<string> {
  return scratchDir("stale-");
}

describe("removeStaleTempFiles", () => {
  it("removes temporary files at any depth of a writable root and nothing else", async () => {
    const root = await tempDir();
    await mkdir(path.join(root, "a/b"), { recursive: true });
    const stale = [path.join(root, crashedTempName()), path.join(root, "a/b", crashedTempName())];
    for (const file of stale) await writeFile(file, "partial");
    await writeFile(path.join(root, "a/keep.txt"), "user file");
    await writeFile(path.join(root, `${tempFilePrefix}notours`), "looks similar but is a user's");
    const report = await removeStaleTempFiles([{ path: root, readOnly: false }]);
    assert.deepEqual([...report.removed].sort(), [...stale].sort());
    assert.deepEqual(report.failures, []);
    assert.deepEqual((await readdir(root)).sort(), [`${tempFilePrefix}notours`, "a"].sort());
    assert.deepEqual(await readdir(path.join(root, "a/b")), []);
  });

  it("leaves read-only roots alone", async () => {
    const root = await tempDir();
    const file = path.join(root, crashedTempName());
    await writeFile(file, "x");
    const report = await removeStaleTempFiles([{ path: root, readOnly: true }]);
    assert.deepEqual(report.removed, []);
    assert.deepEqual(await readdir(root), [path.basename(file)]);
  });

  it("does not follow symlinks out of the root", async () => {
    const outside = await tempDir();
    const outsideTemp = path.join(outside, crashedTempName());
    await writeFile(outsideTemp, "someone else's");
    const root = await tempDir();
    await symlink(outside, path.join(root, "link"));
    const report = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual(report.removed, []);
    assert.deepEqual(await readdir(outside), [path.basename(outsideTemp)]);
  });

  it("keeps files younger than olderThanMs", async () => {
    const root = await tempDir();
    const fresh = path.join(root, tempFileName());
    const old = path.join(root, tempFileName());
    await writeFile(fresh, "in flight");
    await writeFile(old, "crashed");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, hourAgo, hourAgo);
    const report = await removeStaleTempFiles([{ path: root }], { olderThanMs: 60_000 });
    assert.deepEqual(report.removed, [old]);
    assert.deepEqual(await readdir(root), [path.basename(fresh)]);
  });

  it("spares fresh files of live or unknown writers, removes a crashed local writer's at once and anyone's once old", async () => {
    const root = await tempDir();
    const live = path.join(root, tempFileName());
    const crashed = path.join(root, crashedTempName());
    const otherHost = path.join(root, tempFileName({ identity: "0123456789ab", pid: 1 }));
    const otherHostOld = path.join(root, tempFileName({ identity: "0123456789ab", pid: 2 }));
    for (const file of [live, crashed, otherHost, otherHostOld]) await writeFile(file, "partial");
    const longAgo = new Date(Date.now() - 11 * 60_000);
    await utimes(otherHostOld, longAgo, longAgo);
    const report = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual([...report.removed].sort(), [crashed, otherHostOld].sort());
    assert.deepEqual((await readdir(root)).sort(), [path.basename(live), path.basename(otherHost)].sort());
  });

  it("reports a root it cannot read instead of stopping", async () => {
    const report = await removeStaleTempFiles([{ path: path.join(await tempDir(), "file") }]);
    assert.deepEqual(report, { removed: [], unrecorded: [], failures: [] }, "a vanished root is nothing to clean");
    const root = await tempDir();
    await writeFile(path.join(root, "plain"), "x");
    const notDir = await removeStaleTempFiles([{ path: path.join(root, "plain") }]);
    assert.deepEqual(notDir.failures, [{ path: path.join(root, "plain"), code: "ENOTDIR" }]);
  });
});

describe("tempFileName", () => {
  it("is recognisable and unique", () => {
    const names = new Set(Array.from({ length: 100 }, tempFileName));
    assert.equal(names.size, 100);
    for (const name of names) assert.ok(isTempFileName(name));
    assert.equal(isTempFileName("notes.txt"), false);
  });
});
