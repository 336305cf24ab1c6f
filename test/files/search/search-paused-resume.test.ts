import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchFiles, type SearchEvent } from "../../../src/files/search/search-files.js";
import { walkerPoolState, walkersGivenUp } from "../../../src/files/search/walk/walker-pool.js";
import { waitFor } from "../../support/wait-for.js";
import {
  assertResumesExactly,
  folderTree,
  mixedTree,
  pathFds,
  pull,
  takeWalkers,
  type PausedRequest,
} from "./paused-search.js";
import { insideRoot, pausedLimits, searchRoot } from "./search-fixture.js";

// The timeout is a hang guard.
describe("searchFiles: a paused search gives its walker up and resumes exactly", { timeout: 600_000 }, () => {
  it("returns the same results, in the same order, and the same summary as an unpaused run, after giving its walker up twice (count mode; content with globs, context, ignore files off, hidden files on)", async () => {
    const { sandbox } = await searchRoot(mixedTree());
    const crowd = await searchRoot(folderTree());
    // Content with every option, and the count mode; search-paused-resume-modes.stress.test.ts
    // runs plain content and the files mode too. The walk pauses and resumes the same way in each.
    const requests: PausedRequest[] = [
      { pattern: "needle", mode: "count" },
      {
        pattern: "NEEDLE",
        caseInsensitive: true,
        contextBefore: 1,
        contextAfter: 1,
        include: ["*.txt", "*.TXT", "*.log"],
        exclude: ["e.x", "d_2/*.txt"],
        noIgnore: true,
        includeHidden: true,
      },
    ];
    for (const request of requests) await assertResumesExactly(sandbox, crowd.sandbox, request);
  });

  it("closes every descriptor when a search that gave its walker up is cancelled", async () => {
    const { root, sandbox } = await searchRoot(folderTree());
    await takeWalkers(sandbox); // warm up: the walk and match threads exist
    await waitFor("the warm-up's walks to end", () => walkerPoolState().holders === 0);
    const baseline = await pathFds();
    assert.equal(await insideRoot(root), 0);
    const givenUpBefore = walkersGivenUp();
    const search = searchFiles(sandbox, { path: "", pattern: "needle" }, pausedLimits);
    const run = { events: [] as SearchEvent[] };
    assert.ok(await pull(search, run, 100));
    await waitFor("the walk to run ahead as far as it may and pause", () => walkerPoolState().paused === 1);
    await takeWalkers(sandbox);
    assert.ok(walkersGivenUp() > givenUpBefore);
    assert.ok(
      (await insideRoot(root)) > 0,
      "the paused search still holds its start folder and the folders it is searching",
    );
    await search.return(undefined);
    assert.equal(await insideRoot(root), 0);
    assert.equal(await pathFds(), baseline);
  });
});
