import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchFiles } from "../../../src/files/search/search-files.js";
import { maxWalkers } from "../../../src/files/search/walk/walker-pool.js";
import { pausedLimits, runSearch, searchRoot } from "./search-fixture.js";

describe("searchFiles: paused searches of one caller and the searches of others", () => {
  // The timeout is the hang guard: starved, the other caller's search would wait for ever.
  it(`a search of another caller finishes while one caller holds ${maxWalkers} searches paused (its client not reading)`, {
    timeout: 120_000,
  }, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 800; i++) files[`f${String(i).padStart(4, "0")}/x.txt`] = "needle\n";
    const greedy = await searchRoot(files);
    const other = await searchRoot({ "a.txt": "needle\n" });
    await runSearch(other.sandbox, { pattern: "warm-up" });
    const paused = Array.from({ length: maxWalkers }, () =>
      searchFiles(greedy.sandbox, { path: "", pattern: "needle" }, pausedLimits),
    );
    try {
      await Promise.all(paused.map((s) => s.next())); // each started and yielded; nobody pulls again
      let matches = 0;
      for await (const event of searchFiles(other.sandbox, { path: "", pattern: "needle" }, pausedLimits))
        if (event.kind === "match") matches++;
      assert.equal(matches, 1);
    } finally {
      await Promise.all(paused.map((s) => s.return(undefined).catch(() => undefined)));
    }
  });
});
