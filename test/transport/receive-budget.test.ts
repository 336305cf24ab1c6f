import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ReceiveBudget } from "../../src/transport/policy/receive-budget.js";

describe("the HTTP listener's receive budget", () => {
  const limits = { maxReceiveBufferBytes: 1000, maxReceiveBufferBytesPerCaller: 300 };

  it("refuses a caller past its own share while another caller still gets in", () => {
    const budget = new ReceiveBudget(limits);
    const a = [budget.claim("a", 100), budget.claim("a", 100), budget.claim("a", 100)];
    assert.ok(a.every((c) => c.granted));
    assert.deepEqual(budget.claim("a", 1), { granted: false, full: "caller" });
    assert.equal(budget.held("a"), 300);
    const b = budget.claim("b", 300);
    assert.equal(b.granted, true);
    assert.equal(budget.held(), 600);
  });

  it("refuses any caller once all callers together hold the total, naming the server's budget", () => {
    const budget = new ReceiveBudget(limits);
    for (const caller of ["a", "b", "c"]) assert.equal(budget.claim(caller, 300).granted, true);
    assert.deepEqual(budget.claim("d", 101), { granted: false, full: "server" });
    assert.equal(budget.claim("d", 100).granted, true);
    assert.deepEqual(
      budget.claim("a", 1),
      { granted: false, full: "caller" },
      "a caller over its own share is told so first",
    );
  });

  it("lets one claim larger than a budget in when nothing is held", () => {
    const budget = new ReceiveBudget(limits);
    const big = budget.claim("a", 5000);
    assert.equal(big.granted, true);
    assert.deepEqual(budget.claim("b", 1), { granted: false, full: "server" });
    if (big.granted) big.release();
    assert.equal(budget.claim("b", 400).granted, true, "over b's share, but b holds nothing and neither does anyone");
    assert.deepEqual(budget.claim("b", 1), { granted: false, full: "caller" });
  });

  it("gives back each claim once, and keeps no count for a caller that holds nothing", () => {
    const budget = new ReceiveBudget(limits);
    const first = budget.claim("a", 200);
    const second = budget.claim("a", 100);
    assert.ok(first.granted && second.granted);
    first.release();
    first.release();
    assert.equal(budget.held("a"), 100);
    assert.equal(budget.held(), 100);
    second.release();
    assert.equal(budget.held(), 0);
    assert.equal(budget.callers, 0);
  });

  it("grants a request with no body without counting it", () => {
    const budget = new ReceiveBudget(limits);
    assert.equal(budget.claim("a", 300).granted, true);
    assert.equal(budget.claim("a", 0).granted, true);
    assert.equal(budget.held("a"), 300);
  });
});
