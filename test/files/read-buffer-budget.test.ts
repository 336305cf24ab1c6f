import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { claimChunk, releaseChunk } from "../../src/files/read/chunk-buffers.js";
import { ReadBufferBudget } from "../../src/files/read/read-buffer-budget.js";
import { readRange } from "../../src/files/read/read-range.js";

/** settled lets every callback queued so far run (no timer: the order is the event loop's). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("ReadBufferBudget", () => {
  it("gives a read that holds nothing its chunk at once, and holds a read past its fair share", async () => {
    const budget = new ReadBufferBudget(400);
    const huge = budget.open();
    await huge.take(100);
    await huge.take(300); // alone, the whole bound is its share
    const small = budget.open();
    await small.take(100); // holds nothing: admitted over the bound
    assert.equal(budget.heldBytes, 500);
    let hugeAdmitted = false;
    const hugeNext = huge.take(100).then(() => (hugeAdmitted = true));
    await settled();
    assert.equal(hugeAdmitted, false, "over the bound and over its share of two reads");
    small.give(100);
    await settled();
    assert.equal(hugeAdmitted, false, "400 of 400 held: still no room");
    huge.give(300);
    await hugeNext;
    assert.equal(huge.heldBytes, 200);
    small.close();
    huge.give(200);
    huge.close();
    assert.equal(budget.heldBytes, 0);
    assert.equal(budget.openReads, 0);
  });

  it("admits a waiter that fits without waiting behind a larger one", async () => {
    const budget = new ReadBufferBudget(300);
    const a = budget.open();
    const b = budget.open();
    const c = budget.open();
    await a.take(100);
    await b.take(100);
    await c.take(100);
    const order: string[] = [];
    const bigWait = a.take(100).then(() => order.push("a"));
    const smallWait = b.take(50).then(() => order.push("b"));
    c.give(100);
    c.close(); // two reads open: a share is 150
    await smallWait;
    assert.deepEqual(order, ["b"], "b's 50 fit its share at once; a's 100 did not, and b did not wait behind it");
    b.give(150);
    b.close(); // a alone: its share is the whole bound
    await bigWait;
    assert.deepEqual(order, ["b", "a"]);
  });

  it("stops a wait with the signal's reason and takes nothing", async () => {
    const budget = new ReadBufferBudget(100);
    const holder = budget.open();
    await holder.take(100);
    const waiter = budget.open();
    await waiter.take(10);
    const controller = new AbortController();
    const wait = waiter.take(10, controller.signal);
    const reason = new Error("the call was cancelled");
    controller.abort(reason);
    await assert.rejects(wait, (err) => err === reason);
    assert.equal(waiter.heldBytes, 10);
    holder.give(100);
    assert.equal(budget.heldBytes, 10, "the aborted wait was not admitted later");
  });
});

describe("readRange with a read share", () => {
  it("lets a small read finish while a huge one's client holds every chunk it was sent", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "read-budget-"));
    try {
      const chunkSize = 64 * 1024;
      const hugeContent = randomBytes(40 * chunkSize);
      const smallContent = randomBytes(5 * chunkSize + 17);
      await writeFile(path.join(dir, "huge.bin"), hugeContent);
      await writeFile(path.join(dir, "small.bin"), smallContent);
      const budget = new ReadBufferBudget(4 * chunkSize);
      const hugeHandle = await open(path.join(dir, "huge.bin"), "r");
      const smallHandle = await open(path.join(dir, "small.bin"), "r");
      try {
        const hugeShare = budget.open();
        const huge = readRange(hugeHandle, 0, undefined, chunkSize, undefined, hugeShare);
        // The huge read's transport claims each chunk and, its client not reading, never
        // writes one out: it takes chunks until its share is full, then its next read waits.
        const hugeHash = createHash("sha256");
        const held: Uint8Array[] = [];
        for (let i = 0; i < 4; i++) {
          const { value } = await huge.next();
          const chunk = value as Uint8Array;
          claimChunk(chunk);
          hugeHash.update(chunk);
          held.push(chunk);
        }
        const stalled = huge.next();
        await settled();
        assert.ok(budget.heldBytes <= budget.bound, "the huge read holds no more than the bound");

        // The small read holds nothing when it starts, so it is never stalled by the huge one;
        // its consumer copies each chunk, whose bytes leave its share when it asks for more.
        const smallShare = budget.open();
        const smallHash = createHash("sha256");
        for await (const chunk of readRange(smallHandle, 0, undefined, chunkSize, undefined, smallShare)) {
          smallHash.update(chunk);
        }
        smallShare.close();
        assert.equal(smallHash.digest("hex"), createHash("sha256").update(smallContent).digest("hex"));
        assert.equal(smallShare.heldBytes, 0, "every small-read chunk given back");

        // The client reads on: chunks written out come back, and the huge read finishes.
        for (const chunk of held.splice(0)) releaseChunk(chunk);
        const next = await stalled;
        assert.equal(next.done, false);
        for (let chunk = next.value as Uint8Array; ; ) {
          claimChunk(chunk);
          hugeHash.update(chunk);
          releaseChunk(chunk);
          const more = await huge.next();
          if (more.done === true) break;
          chunk = more.value;
        }
        hugeShare.close();
        assert.equal(hugeHash.digest("hex"), createHash("sha256").update(hugeContent).digest("hex"));
        assert.equal(budget.heldBytes, 0, "every chunk's bytes given back");
      } finally {
        await hugeHandle.close();
        await smallHandle.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
