import assert from "node:assert/strict";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { runSearch, searchRoot, writeTree } from "./search-fixture.js";

/** searches is how many searches race the swap loop: the bound of the test is this work, not a time. */
const searches = 300;

describe("searchFiles: never leaves the roots", () => {
  it(`returns no outside match in ${searches} searches while a folder is swapped with a symlink to outside in a loop`, async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "s1.txt": "OUTSIDE_TOKEN\n", "deep/s2.txt": "OUTSIDE_TOKEN\n" });
    const inside: Record<string, string> = {};
    for (let i = 0; i < 20; i++) inside[`sub/f${i}.txt`] = "INSIDE_TOKEN\n";
    const { root, sandbox } = await searchRoot(inside);
    await symlink(outside, path.join(root, "link"));
    await runSearch(sandbox, { pattern: "warm-up" }); // the workers exist before the race starts
    // The loop's own time limit is only a guard against a test that never stops it.
    const loop = await startExchangeLoop(path.join(root, "sub"), path.join(root, "link"), 3600);
    let leaked = 0;
    let insideMatches = 0;
    let swaps = 0;
    try {
      for (let i = 0; i < searches; i++) {
        const run = await runSearch(sandbox, { pattern: "OUTSIDE_TOKEN", includeHidden: true, noIgnore: true });
        leaked += run.matches.length;
        insideMatches += (await runSearch(sandbox, { pattern: "INSIDE_TOKEN" })).matches.length;
      }
    } finally {
      swaps = await loop.stop();
    }
    assert.ok(swaps > 0, "the loop swapped nothing: the test raced nothing");
    assert.equal(leaked, 0, `outside content returned in ${leaked} matches over ${searches} searches`);
    assert.ok(insideMatches > 0, "the inside folder was never searched: the test raced nothing");
  });
});
