import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { coalesceFrames, corkUntilIdle } from "../../src/transport/grpc-js/coalesce-writes.js";

/** slowSink is an object-mode Writable like grpc-js's server stream: one write at a time, each done a turn later. */
function slowSink(): { sink: Writable; writes: Buffer[] } {
  const writes: Buffer[] = [];
  const sink = new Writable({
    objectMode: true,
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk);
      setImmediate(callback);
    },
  });
  return { sink, writes };
}

const frame = (byte: number, length: number) => Buffer.alloc(length, byte);

describe("coalesceFrames", () => {
  it("sends the frames queued behind a write in one write, in order, and calls every write back", async () => {
    const { sink, writes } = slowSink();
    coalesceFrames(sink);
    const done: number[] = [];
    sink.write(frame(1, 10), () => done.push(1));
    sink.write(frame(2, 20), () => done.push(2));
    sink.write(frame(3, 30), () => done.push(3));
    await new Promise<void>((resolve) => sink.end(resolve));
    assert.deepEqual(
      writes.map((w) => w.byteLength),
      [10, 50],
    );
    assert.deepEqual(Buffer.concat(writes), Buffer.concat([frame(1, 10), frame(2, 20), frame(3, 30)]));
    assert.deepEqual(done, [1, 2, 3]);
  });

  it("never copies a frame over 64 KiB: it goes alone, the small ones around it together", async () => {
    const { sink, writes } = slowSink();
    coalesceFrames(sink);
    const big = frame(9, 64 * 1024 + 1);
    sink.write(frame(1, 5));
    sink.write(frame(2, 5));
    sink.write(frame(3, 5));
    sink.write(big);
    sink.write(frame(4, 5));
    sink.write(frame(5, 5));
    await new Promise<void>((resolve) => sink.end(resolve));
    assert.deepEqual(
      writes.map((w) => w.byteLength),
      [5, 10, 64 * 1024 + 1, 10],
    );
    assert.equal(writes[2], big, "the large frame is the very buffer written, not a copy");
  });

  it("without it, each queued frame is a write of its own (what grpc-js does)", async () => {
    const { sink, writes } = slowSink();
    sink.write(frame(1, 10));
    sink.write(frame(2, 20));
    sink.write(frame(3, 30));
    await new Promise<void>((resolve) => sink.end(resolve));
    assert.equal(writes.length, 3);
  });
});

describe("corkUntilIdle", () => {
  it("hands over the writes made before the next I/O wait together, and later ones as they come", async () => {
    const { sink, writes } = slowSink();
    coalesceFrames(sink);
    for (const byte of [1, 2, 3]) {
      await Promise.resolve(); // promise hops, as a handler's generator makes: no I/O
      corkUntilIdle(sink);
      sink.write(frame(byte, 10));
    }
    await new Promise((resolve) => setImmediate(resolve)); // an I/O wait
    corkUntilIdle(sink);
    sink.write(frame(4, 10));
    await new Promise<void>((resolve) => sink.end(resolve));
    assert.deepEqual(
      writes.map((w) => w.byteLength),
      [30, 10],
    );
  });
});
