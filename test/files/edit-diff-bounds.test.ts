import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyPatch, createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { boundedDiff } from "../../src/files/edit/diff/bounded-diff.js";
import { oneHunkDiff } from "../../src/files/edit/diff/one-hunk-diff.js";
import { uniqueBlockDiff } from "../../src/files/edit/diff/unique-block-diff.js";

/** random is a small seeded generator, so a failure is reproducible. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

describe("bounded diffs", () => {
  it("the one-hunk diff applies back to the edited text, over 3000 random edits", () => {
    const next = random(7);
    const word = () => ["a", "b", "", "c\r", "dd"][Math.floor(next() * 5)] as string;
    for (let n = 0; n < 3000; n++) {
      const lines = Array.from({ length: Math.floor(next() * 12) }, word);
      const before = lines.join("\n") + (next() < 0.5 ? "\n" : "");
      const changed = [...lines];
      for (let k = 0; k < 3; k++) {
        const at = Math.floor(next() * (changed.length + 1));
        if (next() < 0.5) changed.splice(at, 0, word());
        else changed.splice(at, 1);
      }
      const after = changed.join("\n") + (next() < 0.5 ? "\n" : "");
      if (before === after || /\r/.test(before + after)) continue;
      const diff = oneHunkDiff("f", before, after, 1 << 20);
      assert.equal(applyPatch(before, diff), after, `case ${n}: ${JSON.stringify({ before, after, diff })}`);
    }
  });

  it("the quick diff of a one-block change is jsdiff's, character for character, over 20000 random edits", () => {
    const next = random(11);
    let quickOnes = 0;
    let multiLine = 0;
    for (let n = 0; n < 20000; n++) {
      const vocab = 2 + Math.floor(next() * 60);
      const word = () => (next() < 0.05 ? "" : `w${Math.floor(next() * vocab)}`);
      const lines = Array.from({ length: Math.floor(next() * 24) }, word);
      const changed = [...lines];
      if (next() < 0.5) {
        // Scattered single-line changes (mostly not one block: jsdiff's case).
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
          const at = Math.floor(next() * (changed.length + 1));
          const r = next();
          if (r < 0.33) changed.splice(at, 0, word());
          else if (r < 0.66) changed.splice(at, 1);
          else changed.splice(at, 1, word());
        }
      } else {
        // One block of lines replaced by another, either side possibly empty.
        const at = Math.floor(next() * (changed.length + 1));
        changed.splice(at, Math.floor(next() * 5), ...Array.from({ length: Math.floor(next() * 5) }, word));
      }
      const ending = next() < 0.9 ? "\n" : "";
      const before = lines.map((l) => `${l}\n`).join("");
      const after = changed.map((l) => `${l}\n`).join("") + (changed.length > 0 ? "" : ending);
      if (before === after) continue;
      const quick = uniqueBlockDiff("f", before, after);
      if (quick === undefined) continue;
      quickOnes++;
      if (quick.split("\n").filter((l) => /^[-+][^-+]/.test(l) || l === "-" || l === "+").length > 2) multiLine++;
      const full = createTwoFilesPatch("a/f", "b/f", before, after, undefined, undefined, {
        context: 3,
        stripTrailingCr: true,
        headerOptions: FILE_HEADERS_ONLY,
      });
      assert.equal(quick, full, `case ${n}: ${JSON.stringify({ before, after })}`);
      assert.equal(boundedDiff("f", before, after, { maxBytes: 1 << 20, timeoutMs: 200 }).diff, full);
    }
    const long = `x\n${"y".repeat(5000)}\nz\n`;
    const cutQuick = boundedDiff("f", long, long.replace("x", "X"), { maxBytes: 1000, timeoutMs: 200 });
    assert.ok(
      cutQuick.diff.endsWith(
        `(limits.max_edit_diff_bytes): ${Buffer.byteLength(createTwoFilesPatch("a/f", "b/f", long, long.replace("x", "X"), undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY })) - cutQuick.diff.indexOf("...")} bytes more; the edit was applied whole, re-read the file to see it\n`,
      ),
      cutQuick.diff.slice(-200),
    );
    assert.ok(
      quickOnes > 4000 && multiLine > 500,
      `the quick path was taken ${quickOnes} times, ${multiLine} with several changed lines`,
    );
  });

  it("leaves to jsdiff a change whose lines also occur elsewhere, texts with CRs and without a final newline", () => {
    assert.equal(
      uniqueBlockDiff("f", "a\nb\na\n", "a\n"),
      undefined,
      "the removed 'a' also stays: which one is removed is jsdiff's choice",
    );
    assert.equal(uniqueBlockDiff("f", "a\r\nb\r\n", "a\r\nc\r\n"), undefined);
    assert.equal(uniqueBlockDiff("f", "a\nb", "a\nc"), undefined);
    const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}\n`).join("");
    assert.notEqual(
      uniqueBlockDiff("f", `a\n${lines("old", 32)}z\n`, `a\n${lines("new", 32)}z\n`),
      undefined,
      "32 lines a side: quick",
    );
    assert.equal(
      uniqueBlockDiff("f", `a\n${lines("old", 33)}z\n`, `a\n${lines("new", 1)}z\n`),
      undefined,
      "over 32 lines a side: jsdiff, with its time bound",
    );
    const big = "x".repeat(9 * 1024 * 1024);
    assert.equal(
      uniqueBlockDiff("f", `${big}\nold1\nold2\nz\n`, `${big}\nnew1\nnew2\nz\n`),
      undefined,
      "more searching than maxScanChars: jsdiff",
    );
    assert.equal(uniqueBlockDiff("f", "a\nb\nc\n", "a\nB\nc\n"), "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  });

  it("cuts a diff over its budget at a line and says so", () => {
    const before = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const after = before.replaceAll("line", "LINE");
    const { diff, truncated } = boundedDiff("f.txt", before, after, { maxBytes: 1000, timeoutMs: 200 });
    assert.equal(truncated, true);
    assert.ok(Buffer.byteLength(diff) <= 1000, `${Buffer.byteLength(diff)} bytes`);
    assert.match(diff, /^--- a\/f\.txt\n\+\+\+ b\/f\.txt\n@@ -1,1000 \+1,1000 @@\n-line 0\n/);
    assert.match(
      diff,
      /\n\.\.\. diff cut at 1000 bytes \(limits\.max_edit_diff_bytes\): \d+ bytes more; the edit was applied whole, re-read the file to see it\n$/,
    );
  });

  it("falls back to one hunk, flagged, when the line diff runs past edit_diff_timeout_ms", () => {
    const before = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? `even ${i}` : `odd ${i}`)).join("\n") + "\n";
    const after = before.replaceAll("even", "EVEN");
    const quick = boundedDiff("f.txt", before, after, { maxBytes: 1 << 20, timeoutMs: 60_000 });
    const cutOff = boundedDiff("f.txt", before, after, { maxBytes: 1 << 20, timeoutMs: 0 });
    assert.equal(quick.truncated, false);
    assert.equal(cutOff.truncated, true);
    assert.match(cutOff.diff, /^--- a\/f\.txt\n\+\+\+ b\/f\.txt\n@@ -1,1000 \+1,1000 @@\n-even 0\n-odd 1\n/);
    assert.equal(applyPatch(before, cutOff.diff), after);
    assert.equal(applyPatch(before, quick.diff), after);
  });

  it("gives the full line diff when it is small and quick", () => {
    const { diff, truncated } = boundedDiff("f.txt", "a\nb\nc\n", "a\nB\nc\n", { maxBytes: 1000, timeoutMs: 200 });
    assert.deepEqual(
      { diff, truncated },
      { diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", truncated: false },
    );
  });
});
