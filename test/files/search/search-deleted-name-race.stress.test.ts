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
 * Run with TOOLHOST_NATIVE=0 for the JavaScript path (ContentFolder.stillNamed has the same compare).
 */
/** searches is how many searches race the loop: the bound of the test is this work, not a time. */
const searches = 1000;

describe("searchFiles: a hard link to an outside file named '<name> (deleted)', renamed and removed while searched", () => {
  it("never returns the outside file's content", async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "secret.txt": "OUTSIDE_TOKEN\n" });
    const inside: Record<string, string> = {};
    for (let i = 0; i < 30; i++) inside[`sub/f${i}.txt`] = "INSIDE_TOKEN\n";
    const { root, sandbox } = await searchRoot(inside);
    const child = spawn(
      "python3",
      ["-c", deletedNameLoop, path.join(outside, "secret.txt"), path.join(root, "sub"), "3600", "40"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    let leaked = 0;
    let insideMatches = 0;
    try {
      // The loop's own time limit (3600 s) is only a guard against a test that never stops it.
      for (let i = 0; i < searches && leaked === 0; i++) {
        const run = await runSearch(sandbox, { pattern: "_TOKEN" });
        for (const m of run.matches) m.text.startsWith("OUTSIDE") ? leaked++ : insideMatches++;
      }
    } finally {
      child.kill();
      await exited;
    }
    assert.ok(insideMatches > 0, "nothing was searched");
    assert.equal(leaked, 0, `the outside file's content was returned ${leaked} time(s) within ${searches} searches`);
  });
});
