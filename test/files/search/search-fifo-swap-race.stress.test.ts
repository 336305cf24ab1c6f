import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { startFifoWriter } from "../../support/fifo-writer.js";
import { runSearch, searchRoot } from "./search-fixture.js";

/** searches is how many searches race the swap loop: the bound of the test is this work, not a time. */
const searches = 1000;

describe("searchFiles: a FIFO swapped in for a listed file is never opened", () => {
  it(`leaves a writer blocked on the FIFO blocked over ${searches} searches while the FIFO and a regular file swap names in a loop`, async () => {
    const { root, sandbox } = await searchRoot({ "a.txt": "TOKEN\n" });
    const fifo = path.join(root, "p.fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = await startFifoWriter(fifo);
    // The loop's own time limit is only a guard against a test that never stops it.
    const loop = await startExchangeLoop(path.join(root, "a.txt"), fifo, 3600);
    let done = 0;
    let searched = 0;
    let swaps = 0;
    try {
      for (; done < searches && writer.stillBlocked(); done++)
        searched += (await runSearch(sandbox, { pattern: "TOKEN" })).matches.length;
    } finally {
      swaps = await loop.stop();
      await writer.stop().catch(() => undefined);
    }
    assert.ok(
      swaps > 0 && searched > 0,
      `the regular file was searched ${searched} times over ${swaps} swaps: the test raced nothing`,
    );
    assert.equal(done, searches, `a search opened the FIFO (its blocked writer went on) after ${done} searches`);
  });
});
