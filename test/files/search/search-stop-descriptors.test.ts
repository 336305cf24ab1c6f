import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { describe, it } from "node:test";
import { searchFiles } from "../../../src/files/search/search-files.js";
import { runSearch, searchRoot, testLimits } from "./search-fixture.js";

const openFds = async (): Promise<number> => (await readdir("/proc/self/fd")).length;

describe("searchFiles: a stop closes every file", () => {
  it("closes every descriptor when the consumer stops early or the call is cancelled", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 10; d++) for (let f = 0; f < 40; f++) files[`d${d}/e/f${f}.txt`] = "hit\nhit\n";
    const { sandbox } = await searchRoot(files);
    await runSearch(sandbox, { pattern: "warm-up" }); // start the pool's workers
    const baseline = await openFds();
    const early = searchFiles(sandbox, { path: "", pattern: "hit" }, testLimits);
    const first = await early.next();
    assert.equal(first.value?.kind, "match");
    await early.return(undefined);
    assert.equal(await openFds(), baseline);

    const controller = new AbortController();
    let seen = 0;
    await assert.rejects(async () => {
      for await (const event of searchFiles(sandbox, { path: "", pattern: "hit" }, testLimits, controller.signal)) {
        if (event.kind === "match" && ++seen === 5) controller.abort();
      }
    });
    assert.equal(await openFds(), baseline);
  });
});
