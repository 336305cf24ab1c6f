import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OffThreadSha256 } from "../../src/files/read/off-thread-hash.js";

// A cancelled read discards its hash while chunks are still on the hash worker. Each update's
// promise must still settle (readBytes gives the chunk's room in hashingGate back then):
// otherwise every cancelled large read keeps its room, and once 16 MiB are kept, every large read
// of the process waits for ever (found as the 16th cut file_read over MCP stalling).

describe("OffThreadSha256.discard", () => {
  it("settles the updates posted before it, and the hash after it still works", { timeout: 30_000 }, async () => {
    const discarded = new OffThreadSha256(true);
    const updates: Promise<void>[] = [];
    for (let i = 0; i < 3; i++) {
      const chunk = new Uint8Array(new SharedArrayBuffer(256 * 1024)).fill(i);
      const update = discarded.update(chunk);
      assert.ok(update, "a shared chunk goes to the worker");
      updates.push(update);
    }
    discarded.discard();
    await Promise.all(updates); // before the fix: never settled, and the test timed out

    const next = new OffThreadSha256(true);
    const chunk = new Uint8Array(new SharedArrayBuffer(256 * 1024)).fill(7);
    await next.update(chunk);
    const { createHash } = await import("node:crypto");
    assert.equal(await next.digest(), createHash("sha256").update(chunk).digest("hex"));
  });
});
