import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { describe, it } from "node:test";
import { searchFiles, stagedBatches } from "../../../src/files/search/search-files.js";
import { maxWalkDepth, walkDescriptorBound } from "../../../src/files/search/walk/walk-protocol.js";
import { maxWalkers, walkerPoolState, walkThreads } from "../../../src/files/search/walk/walker-pool.js";
import { waitFor } from "../../support/wait-for.js";
import { pausedLimits, runSearch, searchRoot, testLimits } from "./search-fixture.js";

const openFds = async (): Promise<number> => (await readdir("/proc/self/fd")).length;
const threads = async (): Promise<number> => (await readdir("/proc/self/task")).length;

describe("searchFiles: the walk's bounds", () => {
  it(`enters folders down to ${maxWalkDepth} levels below the start, no deeper`, async () => {
    const files: Record<string, string> = {};
    for (let level = 0; level <= maxWalkDepth + 5; level++) files[`${"d/".repeat(level)}hit.txt`] = "needle\n";
    const { sandbox } = await searchRoot(files);
    const run = await runSearch(sandbox, { pattern: "needle" });
    assert.equal(run.matches.length, maxWalkDepth + 1);
    assert.equal(run.matches.at(-1)?.path, `${"d/".repeat(maxWalkDepth)}hit.txt`);
  });

  it("holds a bounded number of descriptors while the consumer does not pull, and finds everything after", async () => {
    const folders = 3000;
    const files: Record<string, string> = {};
    for (let i = 0; i < folders; i++) files[`f${String(i).padStart(4, "0")}/x.txt`] = "needle\n";
    const { sandbox } = await searchRoot(files);
    await runSearch(sandbox, { pattern: "warm-up" }); // start the workers
    const baseline = await openFds();
    const search = searchFiles(sandbox, { path: "", pattern: "needle" }, testLimits);
    const first = await search.next();
    assert.equal(first.value?.kind, "match");
    await waitFor("the walk to run ahead as far as it may and pause", () => walkerPoolState().paused === 1);
    const held = (await openFds()) - baseline;
    // At most the folder chain plus walkBatchFolders for every batch not answered (staged, 4 per
    // match worker in flight, one being reported, one being built): far below one per folder.
    const bound = walkDescriptorBound(stagedBatches + 4 * 4 + 2);
    assert.ok(held < Math.min(bound, folders * 0.8), `${held} descriptors held while paused`);
    let matches = 1;
    for await (const event of search) if (event.kind === "match") matches++;
    assert.equal(matches, folders);
    assert.equal(await openFds(), baseline);
  });

  it(`runs at most ${maxWalkers} walk threads however many searches are paused, and the others wait their turn`, {
    timeout: 120_000,
  }, async () => {
    // pausedLimits: each walk runs one batch ahead, so a tree of a few hundred folders pauses it.
    const folderCount = 400;
    const files: Record<string, string> = {};
    for (let i = 0; i < folderCount; i++) files[`f${String(i).padStart(4, "0")}/x.txt`] = "needle\n";
    const { sandbox } = await searchRoot(files);
    await runSearch(sandbox, { pattern: "warm-up" });
    const baseline = await threads();
    const searches = Array.from({ length: maxWalkers + 10 }, () =>
      searchFiles(sandbox, { path: "", pattern: "needle" }, pausedLimits),
    );
    try {
      const firsts = searches.map((s) => s.next()); // each search starts, then nobody pulls
      // Every search yields its first event, the later ones on walkers the paused ones gave up;
      // then the pool settles: no search waits, no walk is giving its walker up, every holder paused.
      await Promise.all(firsts);
      await waitFor("the walker pool to settle", () => {
        const pool = walkerPoolState();
        return pool.waiting === 0 && pool.givingUp === 0 && pool.paused === pool.holders;
      });
      // One walk thread per running search, up to maxWalkers (plus the idle ones kept). The
      // process's own count is looser: under tsx each worker may still have its loader's hooks
      // thread, and libuv's pool may start; one walk thread per search would pass neither.
      assert.ok(
        walkThreads() <= maxWalkers + 2,
        `${walkThreads()} walk threads with ${searches.length} searches paused`,
      );
      const extra = (await threads()) - baseline;
      assert.ok(extra <= 2 * maxWalkers + 4, `${extra} more threads with ${searches.length} searches paused`);
      // One more search, cancelled at once: it settles promptly, whether it was still waiting for
      // a walk thread (rejected) or had already been given one a paused search gave up.
      const controller = new AbortController();
      const late = searchFiles(sandbox, { path: "", pattern: "needle" }, pausedLimits, controller.signal);
      const waiting = late.next();
      controller.abort();
      // A hang here is the test's failure (its timeout): the cancelled search must settle.
      assert.equal(
        await waiting.then(
          () => "settled",
          () => "settled",
        ),
        "settled",
      );
      await late.return(undefined).catch(() => undefined);

      const counts = await Promise.all(
        searches.map(async (search, i) => {
          let matches = (await firsts[i])!.value?.kind === "match" ? 1 : 0;
          for await (const event of search) if (event.kind === "match") matches++;
          return matches;
        }),
      );
      assert.deepEqual(
        counts,
        searches.map(() => folderCount),
      );
    } finally {
      await Promise.all(searches.map((search) => search.return(undefined).catch(() => undefined)));
    }
  });
});
