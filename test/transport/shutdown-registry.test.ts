import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ShutdownRegistry, type ShutdownMember } from "../../src/transport/shutdown-registry.js";

/** member makes a ShutdownMember that records the reason it was aborted with. */
function member(): ShutdownMember & { reasons: unknown[] } {
  const reasons: unknown[] = [];
  return { listIndex: -1, reasons, onShutdown: (reason) => reasons.push(reason) };
}

describe("ShutdownRegistry: the calls a server's shutdown aborts", () => {
  it("aborts every member still registered, once each, with the signal's reason; not the ones removed", () => {
    const shutdown = new AbortController();
    const registry = new ShutdownRegistry(shutdown.signal);
    const calls = Array.from({ length: 6 }, member);
    for (const call of calls) registry.add(call);
    registry.add(calls[0]!); // twice: still one member
    assert.equal(registry.size, 6);
    registry.remove(calls[1]!); // from the middle: the last takes its place
    registry.remove(calls[5]!); // the last
    registry.remove(calls[1]!); // twice: nothing more
    assert.equal(registry.size, 4);
    shutdown.abort(new Error("going away"));
    assert.deepEqual(
      calls.map((c) => c.reasons.length),
      [1, 0, 1, 1, 1, 0],
    );
    assert.equal((calls[0]!.reasons[0] as Error).message, "going away");
    assert.equal(registry.size, 0);
    assert.ok(calls.every((c) => c.listIndex === -1));
  });

  it("keeps every index right through many adds and removes in any order", () => {
    const shutdown = new AbortController();
    const registry = new ShutdownRegistry(shutdown.signal);
    const live = new Set<ReturnType<typeof member>>();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      if (live.size > 0 && random() < 0.5) {
        const victim = [...live][Math.floor(random() * live.size)]!;
        registry.remove(victim);
        live.delete(victim);
      } else {
        const call = member();
        registry.add(call);
        live.add(call);
      }
    }
    assert.equal(registry.size, live.size);
    shutdown.abort("stop");
    assert.ok(
      [...live].every((c) => c.reasons.length === 1),
      "every live member aborted once",
    );
  });
});
