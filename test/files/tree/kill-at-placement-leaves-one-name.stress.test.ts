import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { isToolhostError } from "../../../src/errors/toolhost-error.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { removeStaleTempFiles } from "../../../src/files/write/sweep-temp-files.js";
import { scratchDir } from "../write-fixtures.js";

// Review of branch `content` (issue 27 #10, requirement 5): a recursive CopyFile without overwrite
// takes its target name with mkdir(2) (a reservation) and then renames its staging folder over it
// (place-entry.ts). A SIGKILL between the two leaves an empty folder at the client's target name:
// not named like a staging area, so the start-up sweep never removes it, and the retried copy is
// refused with ALREADY_EXISTS although no copy ever completed. The kill is placed exactly there by
// the child (kill-at-placement-step.ts), as a crash landing between those two calls would.
// Severity: LEAK (disk, minor) / WRONG ANSWER on retry.
// Now the placement is one renameat2(RENAME_NOREPLACE); the child dies at the same points around
// it (and at the old steps where the kernel refuses the flag, see place-entry.ts).

const child = fileURLToPath(new URL("./kill-at-placement-step.ts", import.meta.url));

describe("a SIGKILL at a copy or move placement leaves one name, and nothing staged", () => {
  it("leaves nothing at the target once the start-up sweep ran", async () => {
    const root = path.join(await scratchDir("review-copy-kill-"), "root");
    await mkdir(path.join(root, "src", "sub"), { recursive: true });
    for (let i = 0; i < 20; i++) await writeFile(path.join(root, "src", "sub", `f${i}.txt`), `file ${i}\n`);

    const run = spawnSync(process.execPath, ["--import", "tsx", child, root, "after-reservation"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(run.signal, "SIGKILL", `the child should have died at the step: ${run.stderr}`);

    const report = await removeStaleTempFiles([{ path: root }]);
    assert.ok(report.removed.length >= 1, "the crashed copy's staging folder is removed");
    const left = await readdir(root);
    assert.deepEqual(
      left.sort(),
      ["src"],
      `a crashed copy left ${JSON.stringify(left)}; dst is ${JSON.stringify(
        await lstat(path.join(root, "dst")).then(
          (s) => ({ dir: s.isDirectory(), mode: (s.mode & 0o777).toString(8), entries: 0 }),
          () => "absent",
        ),
      )}`,
    );
  });

  // MoveFile without overwrite: link(2) the new name, then unlink(2) the old one (place-entry.ts).
  // A SIGKILL between leaves both names of one inode: neither is a temporary name, so the sweep
  // leaves them, and from then on every content read refuses both as "a file with 2 hard links"
  // (PATH_TRAVERSAL): the user's own file can no longer be read, copied or moved through toolhost
  // until someone deletes one name. Severity: WRONG ANSWER (a crash makes a file unreadable).
  it("a move killed between link and unlink leaves one readable file", async () => {
    const root = path.join(await scratchDir("review-move-kill-"), "root");
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, "a.txt"), "the user's file\n");

    const run = spawnSync(process.execPath, ["--import", "tsx", child, root, "move-after-link"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(run.signal, "SIGKILL", `the child should have died at the step: ${run.stderr}`);
    await removeStaleTempFiles([{ path: root }]);

    const left = (await readdir(root)).sort();
    const sandbox = await createSandbox([{ path: root, readOnly: false }], { reservedNamePrefix: ".toolhost-tmp-" });
    const reads: string[] = [];
    for (const name of left) {
      try {
        const opened = await sandbox.openContent(name);
        await opened.handle.close();
        reads.push(`${name}: readable`);
      } catch (err) {
        reads.push(`${name}: ${isToolhostError(err) ? err.reason : String(err)}`);
      }
    }
    assert.equal(
      left.length,
      1,
      `the move happened, or not at all: ${JSON.stringify(reads)} (nlink ${(await lstat(path.join(root, left[0]!))).nlink})`,
    );
    assert.equal(await readFile(path.join(root, left[0]!), "utf8"), "the user's file\n");
    assert.deepEqual(reads, [`${left[0]}: readable`]);
  });
});
