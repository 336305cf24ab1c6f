import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FairTurns } from "../../../src/files/watch/fair-turns.js";

/** gate is a slice that runs until open() is called. */
function gate(): { slice: () => Promise<void>; open: () => void; started: boolean } {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  const g = {
    started: false,
    open: () => open(),
    slice: async () => {
      g.started = true;
      await done;
    },
  };
  return g;
}

describe("FairTurns: watch work a slice at a time, callers in rotation", () => {
  it("runs at most `concurrency` slices at once", async () => {
    const turns = new FairTurns(2);
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g) => turns.run("a", g.slice));
    await new Promise((r) => setTimeout(r, 0)); // each slice starts a turn of the event loop later
    assert.deepEqual(
      gates.map((g) => g.started),
      [true, true, false],
    );
    assert.equal(turns.waiting, 1);
    gates[0]!.open();
    await runs[0];
    for (let i = 0; i < 100 && !gates[2]!.started; i++) await new Promise((r) => setImmediate(r));
    assert.equal(gates[2]!.started, true);
    gates[1]!.open();
    gates[2]!.open();
    await Promise.all(runs);
    assert.equal(turns.waiting, 0);
  });

  it("gives a caller with one slice a turn within one slice of a caller with a thousand waiting", async () => {
    const turns = new FairTurns(1);
    const order: string[] = [];
    const first = gate();
    const running = turns.run("flood", first.slice);
    const flood = Array.from({ length: 1000 }, (_, i) => turns.run("flood", async () => void order.push(`flood-${i}`)));
    const innocent = turns.run("innocent", async () => void order.push("innocent"));
    first.open();
    await Promise.all([running, innocent, ...flood]);
    assert.ok(order.indexOf("innocent") <= 1, `innocent ran at ${order.indexOf("innocent")}`);
    assert.equal(order.length, 1001);
  });

  it("rejects a waiting slice whose signal aborts, without running it or losing the turn", async () => {
    const turns = new FairTurns(1);
    const first = gate();
    const running = turns.run("a", first.slice);
    const controller = new AbortController();
    let ran = false;
    const aborted = turns.run("b", async () => void (ran = true), controller.signal);
    const after = turns.run("c", async () => "c ran");
    controller.abort(new Error("stream ended"));
    await assert.rejects(aborted, /stream ended/);
    first.open();
    await running;
    assert.equal(await after, "c ran");
    assert.equal(ran, false);
    await assert.rejects(
      turns.run("d", async () => undefined, controller.signal),
      /stream ended/,
    );
  });

  it("passes the turn on when a slice throws", async () => {
    const turns = new FairTurns(1);
    await assert.rejects(
      turns.run("a", async () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.equal(await turns.run("a", async () => 1), 1);
  });
});
