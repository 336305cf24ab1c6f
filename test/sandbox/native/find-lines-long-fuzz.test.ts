import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fsAt } from "../../../src/sandbox/native/fs-at.js";
import { seededRandom } from "../../support/seeded-random.js";

const skip = fsAt === undefined ? "native addon not loaded" : false;

/** naiveLines is findLines' answer by a byte loop: [start, end, line] per line holding needle. */
function naiveLines(content: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  let line = 1;
  let start = 0;
  for (let i = 0; i <= content.length; i++) {
    if (i === content.length || content[i] === 10) {
      if (content.subarray(start, i).indexOf(needle) >= 0) out.push(start, i, line);
      line++;
      start = i + 1;
    }
  }
  return out;
}

// Review (searchfast3): the AVX2 newline counter sums its byte counters every 255 steps of 32
// bytes (8160 bytes); find-text-fuzz.test.ts's haystacks are under 300 bytes, so neither the
// summing nor long runs of text between two matches were compared with a plain count. Here:
// haystacks of 7-70 KB, matches far apart (and none), newlines dense or sparse, unaligned starts,
// and an `out` of one line, so every line after the first comes from a call that starts at the
// previous line's end + 1 with the next line number, as match-lines.ts continues.
describe("findLines over long texts (AVX2 newline counter) against a byte loop", () => {
  it("gives the same lines and line numbers, one line per call", { skip }, () => {
    const random = seededRandom(23);
    const needle = Buffer.from("NEEDLE");
    const out = new Float64Array(3);
    const started = Date.now();
    let compared = 0;
    for (let trial = 0; trial < 400 && Date.now() - started < 15000; trial++) {
      const n = [8159, 8160, 8161, 16320 + 33][trial % 4]! + Math.floor(random() * (trial % 3 === 0 ? 60000 : 64));
      const newlineEvery = [1, 2, 40, 5000][trial % 4]!;
      const shift = Math.floor(random() * 33);
      const backing = Buffer.alloc(shift + n);
      const content = backing.subarray(shift);
      for (let i = 0; i < n; i++) content[i] = random() < 1 / newlineEvery ? 10 : 97 + Math.floor(random() * 3);
      const matches = trial % 5 === 0 ? 0 : 1 + Math.floor(random() * 4);
      for (let m = 0; m < matches; m++) {
        const at = m === 0 && trial % 2 === 0 ? n - needle.length : Math.floor(random() * (n - needle.length));
        needle.copy(content, at);
      }
      const expected = naiveLines(content, needle);
      const found: number[] = [];
      let from = 0;
      let line = 1;
      for (let calls = 0; calls < 100 && from <= n; calls++) {
        if (fsAt!.findLines(content, from, needle, line, out) === 0) break;
        found.push(out[0]!, out[1]!, out[2]!);
        from = out[1]! + 1;
        line = out[2]! + 1;
      }
      assert.deepEqual(found, expected, `trial ${trial}: ${n} bytes, a newline every ~${newlineEvery}, shift ${shift}`);
      compared++;
    }
    assert.ok(compared >= 50, `only ${compared} texts compared in the time allowed`);
  });
});
