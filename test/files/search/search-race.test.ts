import assert from "node:assert/strict";
import { readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { searchFiles } from "../../../src/files/search/search-files.js";
import { defaultLimits } from "../../../src/config/config.js";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { runSearch, searchRoot, writeTree } from "./search-fixture.js";

const openFds = async (): Promise<number> => (await readdir("/proc/self/fd")).length;

describe("searchFiles: never leaves the roots, and a stop closes every file", () => {
  it("returns no outside match while a folder is swapped with a symlink to outside in a loop", async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "s1.txt": "OUTSIDE_TOKEN\n", "deep/s2.txt": "OUTSIDE_TOKEN\n" });
    const inside: Record<string, string> = {};
    for (let i = 0; i < 20; i++) inside[`sub/f${i}.txt`] = "INSIDE_TOKEN\n";
    const { root, sandbox } = await searchRoot(inside);
    await symlink(outside, path.join(root, "link"));
    // The workers started before the clock: on a loaded machine the first search alone can take
    // the whole time below, and the test would race nothing.
    await runSearch(sandbox, { pattern: "warm-up" });
    const loop = await startExchangeLoop(path.join(root, "sub"), path.join(root, "link"), 20);
    let searches = 0;
    let leaked = 0;
    let insideMatches = 0;
    try {
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && searches < 2000) {
        const run = await runSearch(sandbox, { pattern: "OUTSIDE_TOKEN", includeHidden: true, noIgnore: true });
        leaked += run.matches.length;
        insideMatches += (await runSearch(sandbox, { pattern: "INSIDE_TOKEN" })).matches.length;
        searches++;
      }
    } finally {
      const swaps = await loop.stop();
      assert.ok(swaps > 100, `only ${swaps} swaps`);
    }
    assert.equal(leaked, 0, `outside content returned in ${leaked} matches over ${searches} searches`);
    assert.ok(insideMatches > 0, "the inside folder was never searched: the test raced nothing");
  });

  it("closes every descriptor when the consumer stops early or the call is cancelled", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 10; d++) for (let f = 0; f < 40; f++) files[`d${d}/e/f${f}.txt`] = "hit\nhit\n";
    const { sandbox } = await searchRoot(files);
    await runSearch(sandbox, { pattern: "warm-up" }); // start the pool's workers
    const baseline = await openFds();
    const early = searchFiles(sandbox, { path: "", pattern: "hit" }, defaultLimits);
    const first = await early.next();
    assert.equal(first.value?.kind, "match");
    await early.return(undefined);
    assert.equal(await openFds(), baseline);

    const controller = new AbortController();
    let seen = 0;
    await assert.rejects(async () => {
      for await (const event of searchFiles(sandbox, { path: "", pattern: "hit" }, defaultLimits, controller.signal)) {
        if (event.kind === "match" && ++seen === 5) controller.abort();
      }
    });
    assert.equal(await openFds(), baseline);
  });
});
