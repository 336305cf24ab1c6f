import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { BoundedWriter } from "../../src/transport/grpc/bounded-writer.js";
import { SendBudget } from "../../src/transport/grpc/send-budget.js";

/** A socket stand-in whose writes are flushed only when the test says so. */
function stalledSink(): { sink: Writable; flush(): void } {
  const held: (() => void)[] = [];
  const sink = new Writable({
    objectMode: true,
    highWaterMark: 1000,
    write: (_chunk, _enc, callback) => {
      held.push(() => callback());
    },
  });
  return {
    sink,
    flush: () => {
      for (const done of held.splice(0)) done();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("BoundedWriter", () => {
  it("makes the streams of a full shared budget wait before their next message, and resumes them as bytes flush", async () => {
    const shared = new SendBudget(300);
    const a = stalledSink();
    const b = stalledSink();
    const signal = new AbortController().signal;
    const wa = new BoundedWriter(a.sink, 10_000, signal, [shared]);
    const wb = new BoundedWriter(b.sink, 10_000, signal, [shared]);
    await wa.reserve(100);
    await wa.write(Buffer.alloc(100));
    await wb.reserve(100);
    await wb.write(Buffer.alloc(100));
    await wa.reserve(100);
    await wa.write(Buffer.alloc(100));
    assert.equal(shared.pending, 300);
    let waited = true;
    const next = wb.reserve(100).then(() => (waited = false));
    await tick();
    assert.equal(waited, true, "a fourth message fits no more");
    a.flush(); // a Writable hands the sink one write at a time: this flushes the first 100 bytes
    await next;
    assert.equal(waited, false);
    assert.equal(shared.pending, 300);
  });

  it("returns the bytes of writes that never flush when the call ends", async () => {
    const shared = new SendBudget(1000);
    const a = stalledSink();
    const writer = new BoundedWriter(a.sink, 10_000, new AbortController().signal, [shared]);
    await writer.reserve(500);
    await writer.write(Buffer.alloc(400));
    await writer.reserve(500);
    assert.equal(shared.pending, 900);
    writer.release();
    assert.equal(shared.pending, 0);
    a.flush(); // a late callback must not give the bytes back twice
    assert.equal(shared.pending, 0);
  });

  it("stops waiting when the call is cancelled", async () => {
    const shared = new SendBudget(100);
    shared.take(100);
    const controller = new AbortController();
    const writer = new BoundedWriter(stalledSink().sink, 10_000, controller.signal, [shared]);
    const waiting = writer.reserve(50);
    controller.abort();
    await waiting;
    assert.equal(shared.pending, 100);
  });
});
