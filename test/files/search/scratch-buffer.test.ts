import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import {
  growScratch,
  idleScratchBytes,
  maxScratchBytes,
  noteScratchUse,
  scratch,
  scratchIdleMs,
} from "../../../src/files/search/scratch-buffer.js";

describe("a match worker's read buffer (scratch)", () => {
  it("keeps a buffer up to maxScratchBytes while searching, never a larger one", () => {
    const large = growScratch(maxScratchBytes);
    assert.equal(scratch.buffer, large, "a buffer of maxScratchBytes is kept for the next files");
    const huge = growScratch(maxScratchBytes + 1);
    assert.notEqual(scratch.buffer, huge, "a larger one is the file's own");
    assert.equal(scratch.buffer.length, maxScratchBytes);
  });

  it("gives a buffer over idleScratchBytes back once idle for scratchIdleMs, and keeps it while in use", async () => {
    growScratch(idleScratchBytes + 1);
    await sleep(scratchIdleMs / 2);
    noteScratchUse(); // a batch searched: kept scratchIdleMs more from now
    await sleep(scratchIdleMs / 2 + 200);
    assert.equal(scratch.buffer.length, idleScratchBytes + 1, "still in use: kept");
    await sleep(scratchIdleMs / 2 + 200);
    assert.ok(
      scratch.buffer.length <= idleScratchBytes,
      `idle for ${scratchIdleMs} ms: given back (${scratch.buffer.length} bytes kept)`,
    );
    const kept = growScratch(idleScratchBytes);
    await sleep(scratchIdleMs + 200);
    assert.equal(scratch.buffer, kept, "one of idleScratchBytes is kept while idle, as before");
  });
});
