import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HeldData } from "../../clients/ts/src/transport/h2/held-data.js";
import { seededRandom } from "../support/seeded-random.js";

// A paused stream's DATA is held in HeldData until the reader resumes: the same bytes, in order,
// in copies of their own (not views of the socket's chunks), and as few buffers as 64 KiB blocks.
describe("the TS client's HeldData", () => {
  it("hands back every byte pushed, in order, in 64 KiB blocks, and none of the caller's buffers", () => {
    const random = seededRandom(7);
    const held = new HeldData();
    const pushed: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      const size = random() < 0.9 ? Math.floor(random() * 40) : Math.floor(random() * 200_000);
      const chunk = Buffer.alloc(size, i % 251);
      pushed.push(Buffer.from(chunk));
      held.push(chunk);
      chunk.fill(0); // the caller's buffer is reused: what was held must not change
    }
    const out: Buffer[] = [];
    for (let b = held.shift(); b !== undefined; b = held.shift()) out.push(b);
    assert.ok(held.empty, "empty after taking everything");
    assert.ok(Buffer.concat(out).equals(Buffer.concat(pushed)), "the bytes handed back differ from those pushed");
    const total = pushed.reduce((n, b) => n + b.byteLength, 0);
    assert.ok(out.length <= Math.ceil(total / 65536) + 200, `${out.length} buffers for ${total} bytes`);
  });

  it("holds a million one-byte frames in a few blocks, and clear() says how many bytes it dropped", () => {
    const held = new HeldData();
    const one = Buffer.from([1]);
    for (let i = 0; i < 1_000_000; i++) held.push(one);
    let blocks = 0;
    let bytes = 0;
    for (let b = held.shift(); b !== undefined && blocks < 100; b = held.shift()) {
      blocks++;
      bytes += b.byteLength;
      if (blocks === 3) break;
    }
    assert.equal(bytes, 3 * 65536);
    assert.equal(held.clear(), 1_000_000 - 3 * 65536);
    assert.ok(held.empty);
    assert.equal(held.shift(), undefined);
    held.push(Buffer.from("after"));
    assert.equal(held.shift()?.toString(), "after");
  });
});
