// afterReply holds a change's after-answer work (the replaced file's close, the history line's
// fsync) until the transport says a stream has closed, so it never runs between an answer's
// message and its trailers; without a signal it still runs, after a few milliseconds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { afterReply, repliesLeft } from "../../src/files/write/after-reply.js";

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("afterReply", () => {
  it("runs nothing in the caller's turn", () => {
    let ran = false;
    afterReply(() => (ran = true));
    assert.equal(ran, false);
    repliesLeft();
    assert.equal(ran, false, "a stream's close lets the work run in the next turn, not inside the close");
  });

  it("runs the work deferred so far in the turn after a stream closes, in order", async () => {
    const order: number[] = [];
    afterReply(() => order.push(1));
    afterReply(() => order.push(2));
    repliesLeft();
    await turn();
    assert.deepEqual(order, [1, 2]);
  });

  it("runs work without a signal once the fallback elapses", async () => {
    let ran = false;
    afterReply(() => (ran = true));
    await sleep(50);
    assert.equal(ran, true);
  });

  it("runs the rest when one throws", async () => {
    let ran = false;
    afterReply(() => {
      throw new Error("boom");
    });
    afterReply(() => (ran = true));
    repliesLeft();
    await turn();
    assert.equal(ran, true);
  });
});
