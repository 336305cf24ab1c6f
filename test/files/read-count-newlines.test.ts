import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { countNewlines } from "../../src/files/read/count-newlines.js";

function naive(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n++;
  return n;
}

describe("countNewlines", () => {
  it("counts every LF at every alignment and length, next to bytes that differ from LF in one bit", () => {
    // 0x0b, 0x08, 0x8a and 0x0e differ from 0x0a in one bit; 0xff and 0x00 are the extremes.
    const alphabet = [0x0a, 0x0b, 0x08, 0x8a, 0x0e, 0x00, 0xff, 0x41];
    const backing = new Uint8Array(64 + 8);
    for (let round = 0; round < 2000; round++) {
      for (let i = 0; i < backing.length; i++) backing[i] = alphabet[Math.floor(Math.random() * alphabet.length)]!;
      const offset = round % 8;
      const length = Math.floor(Math.random() * 65);
      const view = backing.subarray(offset, offset + length);
      assert.equal(
        countNewlines(view),
        naive(view),
        `offset ${offset} length ${length}: ${Buffer.from(view).toString("hex")}`,
      );
    }
  });

  it("counts a large random buffer and one of only LFs", () => {
    const random = randomBytes(1 << 20);
    assert.equal(countNewlines(random), naive(random));
    assert.equal(countNewlines(Buffer.alloc(4097, 0x0a)), 4097);
    assert.equal(countNewlines(new Uint8Array(0)), 0);
  });
});
