import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { describe, it } from "node:test";
import { deletedNameLoop } from "../../support/deleted-name-loop.js";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { runSearch, searchRoot, writeTree } from "./search-fixture.js";

/**
 * Review of searchfast3 (fails on the native and the JavaScript path): a hard link to an outside
 * file, linked into the root as "x.txt (deleted)", renamed to "x.txt" and removed, in a loop. A
 * match worker that held "x.txt (deleted)" and counted after the removal sees one link, and the
 * name check compares the /proc link ("<folder>/x.txt (deleted)", the kernel's mark for the removed
 * "x.txt") with "<folder>/" + the listed name: equal, so the outside file is read as the root's.
 * Run with TOOLHOST_NATIVE=0 for the JavaScript path (FolderNames.stillNamed has the same compare).
 */
describe("searchFiles: a hard link to an outside file named '<name> (deleted)', renamed and removed while searched", () => {
  it("never returns the outside file's content", async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "secret.txt": "OUTSIDE_TOKEN\n" });
    const inside: Record<string, string> = {};
    for (let i = 0; i < 30; i++) inside[`sub/f${i}.txt`] = "INSIDE_TOKEN\n";
    const { root, sandbox } = await searchRoot(inside);
    const child = spawn("python3", ["-c", deletedNameLoop, path.join(outside, "secret.txt"), path.join(root, "sub"), "30", "40"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    let leaked = 0;
    let searches = 0;
    let insideMatches = 0;
    try {
      const deadline = Date.now() + 15000;
      while (Date.now() < deadline && searches < 20000 && leaked === 0) {
        const run = await runSearch(sandbox, { pattern: "_TOKEN" });
        for (const m of run.matches) m.text.startsWith("OUTSIDE") ? leaked++ : insideMatches++;
        searches++;
      }
    } finally {
      child.kill();
      await exited;
    }
    if (process.env.REVIEW_DEBUG) console.log({ searches, leaked, insideMatches });
    assert.ok(insideMatches > 0, "nothing was searched");
    assert.equal(leaked, 0, `the outside file's content was returned ${leaked} time(s) within ${searches} searches`);
  });
});
