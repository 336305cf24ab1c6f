import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, readFile, readdir, stat, symlink, utimes, writeFile, link } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { tempFileName, tempFilePrefix } from "../../src/files/write/temp-files.js";
import { crashedTempName, recordedStagingFolder, scratchDir } from "./write-fixtures.js";

// Issue 27, finding #10: a recursive CopyFile builds its tree in a staging folder named like a
// temporary file; SIGKILL mid-copy left it, with a partial tree, and the start-up sweep only ever
// removed temporary *files*. A crashed writer's staging folder (or link) is now removed whole,
// through held descriptors, never following a link and never a live writer's; a folder only when
// the staging journal records it (a name alone deletes nothing: see sweep-unrecorded-folders).

/** partialTree fills `dir` as a copy killed half-way leaves it: files, folders, a link, a temporary file. */
async function partialTree(dir: string, outside: string): Promise<void> {
  await mkdir(path.join(dir, "a", "b", "c"), { recursive: true });
  await writeFile(path.join(dir, "a", "one.txt"), "one\n");
  await writeFile(path.join(dir, "a", "b", "c", "deep.txt"), "deep\n");
  await writeFile(path.join(dir, "a", "b", crashedTempName()), "half a file");
  await symlink(outside, path.join(dir, "a", "out")); // removed as a link, never followed
  await symlink(path.join(outside, "kept.txt"), path.join(dir, "link-to-file"));
  await mkdir(path.join(dir, "locked"), { mode: 0o700 });
  await writeFile(path.join(dir, "locked", "f"), "f");
  await chmod(path.join(dir, "locked"), 0o500); // a copy with keep_mode gives folders their modes
}

async function outsideFolder(base: string): Promise<string> {
  const outside = path.join(base, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "kept.txt"), "outside\n");
  return outside;
}

describe("the start-up sweep and staging folders (issue 27, #10)", () => {
  it("removes a crashed writer's staging folder with its partial tree, and nothing outside", async () => {
    const base = await scratchDir("sweep-staging-");
    const root = path.join(base, "root");
    await mkdir(path.join(root, "project"), { recursive: true });
    const outside = await outsideFolder(base);
    const staging = path.join(root, "project", crashedTempName());
    await recordedStagingFolder(staging);
    await partialTree(staging, outside);
    const stagedLink = path.join(root, crashedTempName());
    await symlink(outside, stagedLink); // a copied link not yet placed
    await writeFile(path.join(root, "project", "keep.txt"), "keep\n");

    const report = await removeStaleTempFiles([{ path: root }]);

    assert.deepEqual(report.failures, []);
    assert.deepEqual(report.removed.sort(), [stagedLink, staging].sort());
    assert.deepEqual(await readdir(path.join(root, "project")), ["keep.txt"]);
    assert.deepEqual((await readdir(root)).sort(), ["project"]);
    assert.deepEqual(await readdir(outside), ["kept.txt"], "nothing outside was touched");
    assert.equal(await readFile(path.join(outside, "kept.txt"), "utf8"), "outside\n");
  });

  it("spares a live writer's staging folder (this process) and a fresh one of an unknown writer; removes either once old", async () => {
    const base = await scratchDir("sweep-staging-live-");
    const root = path.join(base, "root");
    await mkdir(root);
    const outside = await outsideFolder(base);
    const live = path.join(root, tempFileName());
    const unknown = path.join(root, tempFileName({ identity: "0123456789ab", pid: 1 }));
    for (const dir of [live, unknown]) {
      await recordedStagingFolder(dir);
      await partialTree(dir, outside);
    }
    const fresh = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual(fresh.removed, []);
    assert.equal((await stat(path.join(live, "a", "one.txt"))).isFile(), true, "the live copy keeps its tree");
    const old = new Date(Date.now() - 3_600_000);
    for (const dir of [live, unknown]) await utimes(dir, old, old);
    const aged = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual(aged.removed.sort(), [live, unknown].sort());
    assert.deepEqual(await readdir(root), []);
  });

  it("removes only names inside: hard links and FIFOs in a staging folder lose their name, outside files keep content and link", async () => {
    const base = await scratchDir("sweep-staging-links-");
    const root = path.join(base, "root");
    await mkdir(root);
    const outside = await outsideFolder(base);
    const staging = path.join(root, crashedTempName());
    await recordedStagingFolder(staging);
    await link(path.join(outside, "kept.txt"), path.join(staging, "hard"));
    execFileSync("mkfifo", [path.join(staging, "fifo")]);
    const report = await removeStaleTempFiles([{ path: root }]);
    assert.deepEqual(report.removed, [staging]);
    assert.equal((await stat(path.join(outside, "kept.txt"))).nlink, 1);
    assert.equal(await readFile(path.join(outside, "kept.txt"), "utf8"), "outside\n");
  });

  it("leaves a folder that only looks like one (no temporary-file name) and a staging folder in a read-only root", async () => {
    const base = await scratchDir("sweep-staging-names-");
    const root = path.join(base, "root");
    const readOnly = path.join(base, "ro");
    await mkdir(path.join(root, `${tempFilePrefix}user-folder`), { recursive: true });
    await mkdir(path.join(readOnly, crashedTempName()), { recursive: true });
    const report = await removeStaleTempFiles([{ path: root }, { path: readOnly, readOnly: true }]);
    assert.deepEqual(report.removed, []);
    assert.equal((await lstat(path.join(root, `${tempFilePrefix}user-folder`))).isDirectory(), true);
    assert.equal((await readdir(readOnly)).length, 1);
  });
});
