import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { lstat, mkdir, readdir, writeFile } from "node:fs/promises";
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
// the child (review-content-kill-copy-step.ts), as a crash landing between those two calls would.
// Severity: LEAK (disk, minor) / WRONG ANSWER on retry.

const child = fileURLToPath(new URL("./review-content-kill-copy-step.ts", import.meta.url));

describe("review-content: SIGKILL between a copy's reservation and its rename", () => {
  it("leaves nothing at the target once the start-up sweep ran", async () => {
    const root = path.join(await scratchDir("review-copy-kill-"), "root");
    await mkdir(path.join(root, "src", "sub"), { recursive: true });
    for (let i = 0; i < 20; i++) await writeFile(path.join(root, "src", "sub", `f${i}.txt`), `file ${i}\n`);

    const run = spawnSync(process.execPath, ["--import", "tsx", child, root, "after-reservation"], { encoding: "utf8", timeout: 60_000 });
    assert.equal(run.signal, "SIGKILL", `the child should have died at the step: ${run.stderr}`);

    const report = await removeStaleTempFiles([{ path: root }]);
    assert.ok(report.removed.length >= 1, "the crashed copy's staging folder is removed");
    const left = await readdir(root);
    assert.deepEqual(left.sort(), ["src"], `a crashed copy left ${JSON.stringify(left)}; dst is ${JSON.stringify(await lstat(path.join(root, "dst")).then((s) => ({ dir: s.isDirectory(), mode: (s.mode & 0o777).toString(8), entries: 0 }), () => "absent"))}`);
  });
});
