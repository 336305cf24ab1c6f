import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fsAt, packNeedles } from "../../../src/sandbox/native/fs-at.js";
import { seededRandom } from "../../support/seeded-random.js";

const skip = fsAt === undefined ? "native addon not loaded" : false;

/** linesWith is findLines' answer computed with Buffer.indexOf: [start, end, line] per line holding needle. */
function linesWith(content: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  let at = 0;
  let line = 1;
  let counted = 0;
  for (;;) {
    if (at >= content.length) return out;
    const pos = content.indexOf(needle, at);
    if (pos < 0) return out;
    const start = pos === 0 ? 0 : content.lastIndexOf(10, pos - 1) + 1;
    for (let i = counted; i < start; i++) if (content[i] === 10) line++;
    counted = start;
    const nl = content.indexOf(10, pos);
    const end = nl < 0 ? content.length : nl;
    out.push(start, end, line);
    at = end + 1;
  }
}

describe("find_text (AVX2 pair search) against Buffer.indexOf", () => {
  it("random haystacks and needles: lengths 1-70 incl. 2/31/32/33, unaligned starts, needles at the very end", {
    skip,
  }, () => {
    const random = seededRandom(11);
    const alphabets = ["ab", "ab\n", "abz\0Q\n", "e \n", "\u00ff\u0000\n"].map((s) => Buffer.from(s, "latin1"));
    const started = Date.now();
    let runs = 0;
    const out = new Float64Array(3 * 4096);
    for (let trial = 0; trial < 20000 && Date.now() - started < 20000; trial++) {
      const alphabet = alphabets[trial % alphabets.length]!;
      const pick = (): number => alphabet[Math.floor(random() * alphabet.length)]!;
      const n = Math.floor(random() * 300);
      const lens = [1, 2, 3, 31, 32, 33, 64, 65, Math.floor(random() * 70) + 1];
      const len = lens[Math.floor(random() * lens.length)]!;
      // The haystack is a slice of a larger buffer at a random (unaligned) offset, ending at its end.
      const shift = Math.floor(random() * 33);
      const backing = Buffer.alloc(shift + n);
      const content = backing.subarray(shift);
      for (let i = 0; i < n; i++) content[i] = pick();
      const needle = Buffer.alloc(len);
      if (n >= len && random() < 0.6) {
        const from = random() < 0.3 ? n - len : Math.floor(random() * (n - len + 1)); // often at the very end
        content.copy(needle, 0, from, from + len);
      } else {
        for (let i = 0; i < len; i++) needle[i] = pick();
      }
      const expected = linesWith(content, needle);
      const found = fsAt!.findLines(content, 0, needle, 1, out);
      assert.deepEqual(
        [...out.subarray(0, 3 * found)],
        expected,
        `trial ${trial}: n ${n}, needle ${JSON.stringify(needle.toString("latin1"))}, shift ${shift}`,
      );
      runs++;
    }
    assert.ok(runs > 1000, `ran ${runs}`);
  });

  it("findLines numbers the lines right across long stretches without a match (the newline count's 255-step flushes)", {
    skip,
  }, () => {
    const random = seededRandom(23);
    const out = new Float64Array(3 * 64);
    const needle = Buffer.from("NEEDLE");
    const started = Date.now();
    let runs = 0;
    for (let trial = 0; trial < 300 && Date.now() - started < 20000; trial++) {
      // 0-40,000 bytes, newlines at a random density (none to every byte), a few needles far apart.
      const n = Math.floor(random() * 40_000);
      const density = [0, 0.001, 0.05, 0.5, 1][trial % 5]!;
      const shift = Math.floor(random() * 33);
      const content = Buffer.alloc(shift + n).subarray(shift);
      for (let i = 0; i < n; i++) content[i] = random() < density ? 10 : 97;
      for (let k = Math.floor(random() * 5); k > 0 && n > needle.length; k--)
        needle.copy(content, Math.floor(random() * (n - needle.length)));
      const expected = linesWith(content, needle);
      const found = fsAt!.findLines(content, 0, needle, 1, out);
      assert.deepEqual(
        [...out.subarray(0, 3 * found)],
        expected.slice(0, 3 * 64),
        `trial ${trial}: n ${n}, density ${density}, shift ${shift}`,
      );
      runs++;
    }
    assert.ok(runs > 50, `ran ${runs}`);
  });

  it("readFileAt's required-text test agrees with Buffer.includes on files of 0-200 bytes", { skip }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), "findtext-"));
    const fd = openSync(dir, "r");
    try {
      const random = seededRandom(5);
      const buffer = Buffer.alloc(4096);
      const info = new Float64Array(1);
      for (let trial = 0; trial < 1500; trial++) {
        const n = Math.floor(random() * 200);
        const body = Buffer.from(Array.from({ length: n }, () => "abQ\n"[Math.floor(random() * 4)]!).join(""));
        const len = [1, 2, 31, 32, 33][trial % 5]!;
        const needle =
          n >= len && random() < 0.5 ? body.subarray(n - len) : Buffer.from("abQ".repeat(12).slice(0, len));
        writeFileSync(path.join(dir, "t.txt"), body);
        const got = fsAt!.readFileAt(fd, "t.txt", buffer, 1 << 20, info, packNeedles([needle]), false);
        assert.equal(
          got >= 0,
          body.includes(needle),
          `trial ${trial}: ${JSON.stringify(body.toString())} / ${JSON.stringify(needle.toString())} -> ${got}`,
        );
      }
    } finally {
      closeSync(fd);
    }
  });
});
