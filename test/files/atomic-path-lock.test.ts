import assert from "node:assert/strict";
import { createHook } from "node:async_hooks";
import { describe, it } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { lockedPathCount, withPathLock } from "../../src/files/write/path-lock.js";

describe("withPathLock", () => {
  it("runs holders of one path one at a time, in arrival order", async () => {
    const events: string[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        withPathLock("/p", async () => {
          events.push(`start ${n}`);
          await tick();
          await tick();
          events.push(`end ${n}`);
        }),
      ),
    );
    assert.deepEqual(events, ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    assert.equal(lockedPathCount(), 0);
  });

  it("lets different paths run at the same time", async () => {
    const events: string[] = [];
    await Promise.all(
      ["/a", "/b"].map((key) =>
        withPathLock(key, async () => {
          events.push(`start ${key}`);
          await tick();
          events.push(`end ${key}`);
        }),
      ),
    );
    assert.deepEqual(events, ["start /a", "start /b", "end /a", "end /b"]);
  });

  it("is re-entrant for a holder that passes its held locks on, and releases after a throw", async () => {
    const inner = await withPathLock("/r", (held) =>
      withPathLock("/r", async () => "nested", { displayPath: "r.txt", held }),
    );
    assert.equal(inner, "nested");
    await assert.rejects(
      withPathLock("/r", async () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.equal(await withPathLock("/r", async () => "free again"), "free again");
    assert.equal(lockedPathCount(), 0);
  });

  it("a nested call that does not pass the held locks on waits its turn like any other (FILE_LOCKED past its bound)", async () => {
    const events: string[] = [];
    await withPathLock("/n", async () => {
      await assert.rejects(
        withPathLock("/n", async () => events.push("inner ran"), { displayPath: "n.txt", waitMs: 50 }),
        (err: unknown) => isToolhostError(err, "FILE_LOCKED"),
      );
      events.push("outer done");
    });
    assert.deepEqual(events, ["outer done"]);
    await tick(); // The waiter that gave up passes its turn on once the holder is done.
    assert.equal(lockedPathCount(), 0);
  });

  it("a bounded wait with nobody before it arms no timer", async () => {
    let timers = 0;
    const hook = createHook({ init: (_id, type) => void (type === "Timeout" && timers++) }).enable();
    try {
      assert.equal(await withPathLock("/t", async () => "ran", { displayPath: "t.txt", waitMs: 10_000 }), "ran");
    } finally {
      hook.disable();
    }
    assert.equal(timers, 0);
  });

  it("a waiter past its bound gets FILE_LOCKED, and those behind it still wait for the holder", async () => {
    const events: string[] = [];
    let finish!: () => void;
    const holding = new Promise<void>((resolve) => (finish = resolve));
    const first = withPathLock("/w", async () => {
      events.push("first");
      await holding;
      events.push("first done");
    });
    const impatient = withPathLock("/w", async () => events.push("impatient"), { displayPath: "w.txt", waitMs: 50 });
    const third = withPathLock("/w", async () => events.push("third"));
    await assert.rejects(impatient, (err: unknown) => {
      assert.ok(isToolhostError(err, "FILE_LOCKED"));
      assert.equal(
        err.message,
        "Cannot change 'w.txt': other calls on this file kept it busy for over 50 ms; nothing was changed. Retry the call.",
      );
      return true;
    });
    await tick();
    assert.deepEqual(events, ["first"], "the third does not start while the first still holds");
    finish();
    await Promise.all([first, third]);
    assert.deepEqual(events, ["first", "first done", "third"]);
    assert.equal(lockedPathCount(), 0);
  });
});
