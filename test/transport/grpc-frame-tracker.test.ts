import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { GrpcFrameTracker } from "../../src/transport/grpc/grpc-frame-tracker.js";
import { frame } from "../support/raw-grpc.js";

describe("GrpcFrameTracker", () => {
  const wire = Buffer.concat([frame(Buffer.alloc(0)), frame(Buffer.alloc(300, 1)), frame(Buffer.alloc(7, 2))]);

  it("counts whole messages however the bytes are split, empty messages included", () => {
    for (const step of [1, 2, 5, 6, 64, wire.length]) {
      const tracker = new GrpcFrameTracker();
      let completed = 0;
      for (let at = 0; at < wire.length; at += step) {
        completed += tracker.push(wire.subarray(at, at + step));
      }
      assert.equal(completed, 3, `step ${step}`);
      assert.equal(tracker.messages, 3);
      assert.equal(tracker.inMessage, false);
      assert.equal(tracker.partialBytes, 0);
    }
  });

  it("tells a stream that stopped inside a prefix or a body, and how much of it arrived", () => {
    for (const cut of [1, 3, 5 + 5 + 100, wire.length - 1]) {
      const tracker = new GrpcFrameTracker();
      tracker.push(wire.subarray(0, cut));
      assert.equal(tracker.inMessage, true, `cut at ${cut}`);
      assert.ok(tracker.partialBytes > 0);
    }
    const tracker = new GrpcFrameTracker();
    tracker.push(wire.subarray(0, 5 + 5 + 100));
    assert.equal(tracker.messages, 1);
    assert.equal(tracker.partialBytes, 5 + 100, "prefix included");
  });

  it("keeps the flag bytes of every prefix, OR'ed, as soon as the prefix is whole", () => {
    const tracker = new GrpcFrameTracker();
    tracker.push(Buffer.from([0, 0, 0, 0, 1, 0x61]));
    assert.equal(tracker.flags, 0);
    tracker.push(Buffer.from([1, 0, 0]));
    assert.equal(tracker.flags, 0, "a prefix cut short is not read yet");
    tracker.push(Buffer.from([0, 2, 0x62]));
    assert.equal(tracker.flags, 1, "flagged compressed before its body is whole");
    tracker.push(Buffer.from([0x63, 2, 0, 0, 0, 0]));
    assert.equal(tracker.flags, 3);
  });
});
