import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HandlerContext } from "@connectrpc/connect";
import { streamAtFirstCall, unaryAtFirstCall } from "../../src/service/handler-at-first-call.js";

const context = {} as HandlerContext;

describe("handlers loaded at their first call", () => {
  it("a unary handler is loaded once for concurrent first calls, then answers directly", async () => {
    let loads = 0;
    const handler = unaryAtFirstCall(async () => {
      loads += 1;
      return (input: number) => input * 2;
    });
    assert.equal(loads, 0);
    const first = await Promise.all([handler(1, context), handler(2, context), handler(3, context)]);
    assert.deepEqual(first, [2, 4, 6]);
    assert.equal(loads, 1);
    // Loaded: a handler that answers synchronously still does.
    assert.equal(handler(5, context), 10);
  });

  it("a unary handler's failure reaches its caller as the rejection it threw", async () => {
    const handler = unaryAtFirstCall(async () => async (input: string) => {
      throw new Error(`refused ${input}`);
    });
    await assert.rejects(async () => handler("a", context), { message: "refused a" });
    await assert.rejects(async () => handler("b", context), { message: "refused b" });
  });

  it("a streaming handler passes every message on, before and after it is loaded", async () => {
    let loads = 0;
    const handler = streamAtFirstCall(async () => {
      loads += 1;
      return async function* (input: number) {
        for (let i = 0; i < input; i++) yield i;
      };
    });
    const collect = async (stream: AsyncIterable<number>) => {
      const out: number[] = [];
      for await (const m of stream) out.push(m);
      return out;
    };
    const [a, b] = await Promise.all([collect(handler(3, context)), collect(handler(2, context))]);
    assert.deepEqual(a, [0, 1, 2]);
    assert.deepEqual(b, [0, 1]);
    assert.deepEqual(await collect(handler(1, context)), [0]);
    assert.equal(loads, 1);
  });
});
