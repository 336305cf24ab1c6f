import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchFiles, type SearchEvent } from "../../../src/files/search/search-files.js";
import {
  pausedWalkDescriptors,
  setPausedWalkDescriptorLimit,
} from "../../../src/files/search/walk/paused-walk-descriptors.js";
import { maxWalkers, walkerPoolState } from "../../../src/files/search/walk/walker-pool.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { waitFor } from "../../support/wait-for.js";
import { insideRoot, pausedLimits, runSearch, searchRoot } from "./search-fixture.js";

// Two batches ahead, not pausedLimits' one: with one, paused()'s waits did not settle (not yet understood).
const limits = { ...pausedLimits, searchRunAheadBatches: 2 };

/** A tree of 300 folders of 3 files each: a batch holds files of many folders. */
function folderTree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 900; i++) files[`d${String(i % 300).padStart(3, "0")}/f${i}.txt`] = "needle\n";
  return files;
}

/** settled tells whether the walker pool stopped moving: no walk is giving its worker up and every walk that holds one is paused. */
function settled(): boolean {
  const pool = walkerPoolState();
  return pool.givingUp === 0 && pool.paused === pool.holders;
}

/**
 * paused starts `count` searches and takes each one's first event, then waits until each either
 * yielded it or waits for a walker, and the pool settled (`sample` sees each state on the way);
 * the ones still waiting are then cancelled.
 */
async function paused(
  sandbox: Sandbox,
  count: number,
  sample: () => void = () => undefined,
): Promise<{ searches: AsyncGenerator<SearchEvent>[]; started: number }> {
  const controller = new AbortController();
  const searches = Array.from({ length: count }, () =>
    searchFiles(sandbox, { path: "", pattern: "needle" }, limits, controller.signal),
  );
  let started = 0;
  const firsts = Promise.allSettled(searches.map((s) => s.next().then((first) => (started++, first))));
  await waitFor(`${count} searches to start or wait for a walker`, () => {
    sample();
    return started + walkerPoolState().waiting === count && settled();
  });
  controller.abort();
  await firsts;
  return { searches, started };
}

async function end(searches: AsyncGenerator<SearchEvent>[]): Promise<void> {
  await Promise.all(searches.map((s) => s.return(undefined).catch(() => undefined)));
}

describe("searchFiles: the descriptors of paused searches", { timeout: 120_000 }, () => {
  it("counts what searches that gave their walker up hold, and keeps it under the server's bound: one that would exceed it keeps its walker", async () => {
    const greedy = await searchRoot(folderTree());
    const others = await searchRoot(folderTree());
    await runSearch(greedy.sandbox, { pattern: "warm-up" });
    const base = await insideRoot(greedy.root);

    // Sixteen paused searches, then sixteen more that wait for walkers: every paused one gives its walker up.
    let first = await paused(greedy.sandbox, maxWalkers);
    assert.equal(first.started, maxWalkers);
    let second = await paused(others.sandbox, maxWalkers);
    assert.equal(second.started, maxWalkers);
    const held = pausedWalkDescriptors();
    // What the counter says is what they hold: their start folders, and the folders of files taken and not reported.
    assert.equal((await insideRoot(greedy.root)) - base, maxWalkers + held);
    assert.ok(held > maxWalkers, `${held} descriptors held by paused searches`);
    await end([...first.searches, ...second.searches]);
    assert.equal(pausedWalkDescriptors(), 0);
    assert.equal(await insideRoot(greedy.root), base);

    // With room for about half of that, the others get about half the walkers; the rest wait.
    const limit = Math.floor(held / 2);
    const old = setPausedWalkDescriptorLimit(limit);
    try {
      first = await paused(greedy.sandbox, maxWalkers);
      let most = 0;
      second = await paused(others.sandbox, maxWalkers, () => (most = Math.max(most, pausedWalkDescriptors())));
      assert.ok(most <= limit, `${most} descriptors held by paused searches, over the bound of ${limit}`);
      assert.ok(
        second.started > 0 && second.started < maxWalkers,
        `${second.started} of ${maxWalkers} searches got a walker`,
      );
      await end([...first.searches, ...second.searches]);
    } finally {
      setPausedWalkDescriptorLimit(old);
    }
    assert.equal(pausedWalkDescriptors(), 0);
    assert.equal(await insideRoot(greedy.root), base);
  });
});
