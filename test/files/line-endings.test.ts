import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hasMixedEndings, originsByDiff, splitEndedLines, withEndings } from "../../src/files/edit/line-endings.js";

describe("line endings kept per line", () => {
  it("splits lines with their endings; a lone CR stays in its line; no final newline is no ending", () => {
    assert.deepEqual(splitEndedLines("a\r\nb\rc\nd"), [
      { text: "a", eol: "\r\n" },
      { text: "b\rc", eol: "\n" },
      { text: "d", eol: "" },
    ]);
    assert.deepEqual(splitEndedLines(""), []);
  });

  it("tells a mixed file from an LF or a CRLF one", () => {
    assert.equal(hasMixedEndings("a\r\nb\n"), true);
    assert.equal(hasMixedEndings("\na\r\n"), true);
    assert.equal(hasMixedEndings("a\r\nb\r\n"), false);
    assert.equal(hasMixedEndings("a\nb\n"), false);
  });

  it("gives kept lines their own ending, replacing lines the replaced line's, added lines the neighbour's", () => {
    const old = splitEndedLines("k1\r\nold\nk2\r\n");
    const out = withEndings(
      ["k1", "new", "extra", "k2"],
      [{ kind: "kept", old: 0 }, { kind: "replaces", old: 1 }, { kind: "added" }, { kind: "kept", old: 2 }],
      old,
      true,
    );
    assert.equal(out, "k1\r\nnew\nextra\nk2\r\n");
  });

  it("falls back to the file's first ending, and to LF for a file without any", () => {
    assert.equal(
      withEndings(["x", "y"], [{ kind: "added" }, { kind: "added" }], splitEndedLines("a\r\nb\n"), true),
      "x\r\ny\r\n",
    );
    assert.equal(withEndings(["x"], [{ kind: "added" }], [], true), "x\n");
    assert.equal(withEndings(["x", "y"], [{ kind: "added" }, { kind: "added" }], [], false), "x\ny");
  });

  it("aligns an edited text by a line diff: equal lines kept, changed blocks paired in order", () => {
    assert.deepEqual(originsByDiff(["a", "b", "c"], ["a", "B", "B2", "c"]), [
      { kind: "kept", old: 0 },
      { kind: "replaces", old: 1 },
      { kind: "added" },
      { kind: "kept", old: 2 },
    ]);
  });

  it("past the diff's bounds, keeps the common first and last lines and pairs the rest in order", () => {
    const n = 30_000;
    const before = Array.from({ length: n }, (_, i) => `line ${i}`);
    const after = ["head", ...before.map((l) => `${l}!`), "tail"];
    const origins = originsByDiff(["head", ...before, "tail"], after);
    assert.equal(origins.length, n + 2);
    assert.deepEqual(origins[0], { kind: "kept", old: 0 });
    assert.deepEqual(origins[1], { kind: "replaces", old: 1 });
    assert.deepEqual(origins[n], { kind: "replaces", old: n });
    assert.deepEqual(origins[n + 1], { kind: "kept", old: n + 1 });
  });
});
