import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { defaultLimits } from "../../../src/config/config.js";
import { searchFiles } from "../../../src/files/search/search-files.js";
import { maxWalkers } from "../../../src/files/search/walk/walker-pool.js";
import { runSearch, searchRoot } from "./search-fixture.js";

describe("searchFiles: paused searches of one caller and the searches of others", () => {
  it(`a search of another caller finishes while one caller holds ${maxWalkers} searches paused (its client not reading)`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`f${String(i).padStart(4, "0")}/x.txt`] = "needle\n";
    const greedy = await searchRoot(files);
    const other = await searchRoot({ "a.txt": "needle\n" });
    await runSearch(other.sandbox, { pattern: "warm-up" });
    const paused = Array.from({ length: maxWalkers }, () => searchFiles(greedy.sandbox, { path: "", pattern: "needle" }, defaultLimits));
    try {
      await Promise.all(paused.map((s) => s.next())); // each started and yielded; nobody pulls again
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 3000);
      let result: string;
      try {
        let matches = 0;
        for await (const event of searchFiles(other.sandbox, { path: "", pattern: "needle" }, defaultLimits, controller.signal)) if (event.kind === "match") matches++;
        result = `finished with ${matches} match(es)`;
      } catch {
        result = "still waiting for a walk thread after 3 s";
      } finally {
        clearTimeout(timer);
      }
      assert.equal(result, "finished with 1 match(es)");
    } finally {
      await Promise.all(paused.map((s) => s.return(undefined).catch(() => undefined)));
      await sleep(10);
    }
  });
});
