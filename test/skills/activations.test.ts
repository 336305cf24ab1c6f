import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ActivationStore } from "../../src/skills/catalog/activations.js";

describe("ActivationStore", () => {
  it("tracks activations per session and drops them on deactivate", () => {
    const store = new ActivationStore(1000);
    store.activate("s1", "a/x", "d1", "body");
    assert.deepEqual([...store.activeNames("s1")], ["a/x"]);
    assert.deepEqual([...store.activeNames("s2")], []);
    assert.equal(store.body("s1", "a/x"), "body");
    assert.equal(store.deactivate("s1", "a/x"), true);
    assert.equal(store.deactivate("s1", "a/x"), false);
    assert.deepEqual([...store.activeNames("s1")], []);
    assert.deepEqual(store.usage(), { bytes: 0, sessions: 0 });
  });

  it("counts a re-activation once", () => {
    const store = new ActivationStore(1000);
    store.activate("s", "a/x", "d1", "12345");
    store.activate("s", "a/x", "d2", "123");
    // "s" + "a/x" + "123": keys count as well as the body.
    assert.deepEqual(store.usage(), { bytes: 7, sessions: 1 });
  });

  it("evicts the least recently used sessions when bodies exceed the budget", () => {
    // "old" and "new" cost 3 + 3 + 4 = 10 bytes each, "used" 11: the three need 31.
    const store = new ActivationStore(30);
    store.activate("old", "a/x", "d", "1234");
    store.activate("used", "a/x", "d", "1234");
    store.activeNames("old"); // "old" is now more recent than "used"
    store.activate("new", "a/x", "d", "1234");
    assert.deepEqual([...store.activeNames("used")], []);
    assert.deepEqual([...store.activeNames("old")], ["a/x"]);
    assert.deepEqual([...store.activeNames("new")], ["a/x"]);
    assert.deepEqual(store.usage(), { bytes: 20, sessions: 2 });
  });

  it("drops a session's own oldest activations when it alone exceeds the budget", () => {
    const store = new ActivationStore(10);
    store.activate("s", "a/1", "d", "123456");
    store.activate("s", "a/2", "d", "123456");
    assert.deepEqual([...store.activeNames("s")], ["a/2"]);
    assert.deepEqual(store.usage(), { bytes: 10, sessions: 1 });
  });

  it("records an activation whose body alone is over the budget without holding the body", () => {
    const store = new ActivationStore(8);
    store.activate("s", "a/big", "d", "123456789");
    assert.deepEqual([...store.activeNames("s")], ["a/big"]);
    assert.equal(store.body("s", "a/big"), undefined);
    // Only the keys are held: "s" and "a/big".
    assert.deepEqual(store.usage(), { bytes: 6, sessions: 1 });
  });

  it("bounds the number of sessions", () => {
    const store = new ActivationStore(1_000_000, 3);
    for (const s of ["a", "b", "c", "d"]) store.activate(s, "n/x", "d", "x");
    assert.equal(store.usage().sessions, 3);
    assert.deepEqual([...store.activeNames("a")], []);
  });
});
