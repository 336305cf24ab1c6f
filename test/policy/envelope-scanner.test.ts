import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EnvelopeScanner } from "../../src/transport/policy/envelope-scanner.js";

/** envelope is one message of `size` bytes in its five-byte head. */
function envelope(size: number): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(size, 1);
  return Buffer.concat([head, Buffer.alloc(size, 0x61)]);
}

/** scan pushes `body` cut every `step` bytes and returns the first length over the limit. */
function scan(limit: number, body: Buffer, step: number): { over: number | undefined; midMessage: boolean } {
  const scanner = new EnvelopeScanner(limit);
  for (let at = 0; at < body.byteLength; at += step) {
    const over = scanner.push(body.subarray(at, at + step));
    if (over !== undefined) return { over, midMessage: scanner.midMessage };
  }
  return { over: undefined, midMessage: scanner.midMessage };
}

describe("EnvelopeScanner", () => {
  it("passes envelopes within the limit however the chunks are cut", () => {
    const body = Buffer.concat([envelope(10), envelope(0), envelope(16)]);
    for (const step of [1, 2, 3, 5, 7, body.byteLength]) {
      assert.deepEqual(scan(16, body, step), { over: undefined, midMessage: false }, `step ${step}`);
    }
  });

  it("tells the first envelope announcing more than the limit, from its head alone", () => {
    const head = envelope(17).subarray(0, 5);
    const body = Buffer.concat([envelope(3), head]);
    for (const step of [1, 4, body.byteLength]) {
      assert.equal(scan(16, body, step).over, 17, `step ${step}`);
    }
  });

  it("knows a body cut inside an envelope", () => {
    assert.equal(scan(16, envelope(8).subarray(0, 9), 4).midMessage, true);
    assert.equal(scan(16, envelope(8).subarray(0, 3), 1).midMessage, true);
  });
});
