import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyPatch } from "diff";
import { boundedDiff } from "../../src/files/edit/diff/bounded-diff.js";
import { oneHunkDiff } from "../../src/files/edit/diff/one-hunk-diff.js";

/** random is a small seeded generator, so a failure is reproducible. */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
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

  it("cuts a diff over its budget at a line and says so", () => {
    const before = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const after = before.replaceAll("line", "LINE");
    const { diff, truncated } = boundedDiff("f.txt", before, after, { maxBytes: 1000, timeoutMs: 200 });
    assert.equal(truncated, true);
    assert.ok(Buffer.byteLength(diff) <= 1000, `${Buffer.byteLength(diff)} bytes`);
    assert.match(diff, /^--- a\/f\.txt\n\+\+\+ b\/f\.txt\n@@ -1,1000 \+1,1000 @@\n-line 0\n/);
    assert.match(diff, /\n\.\.\. diff cut at 1000 bytes \(limits\.max_edit_diff_bytes\): \d+ bytes more; the edit was applied whole, re-read the file to see it\n$/);
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
    assert.deepEqual({ diff, truncated }, { diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", truncated: false });
  });
});
