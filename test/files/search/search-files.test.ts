import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runSearch, searchRoot } from "./search-fixture.js";

describe("searchFiles: modes, options and summary", () => {
  it("finds a literal with line, column, ranges and a summary", async () => {
    const { sandbox } = await searchRoot({
      "a.txt": "one\ntwo needle and needle\nthree\n",
      "b/c.txt": "needle\n",
      "d.txt": "nothing\n",
    });
    const run = await runSearch(sandbox, { pattern: "needle" });
    assert.deepEqual(
      run.matches.map((m) => [m.path, m.line, m.column, m.text]),
      [
        ["a.txt", 2, 5, "two needle and needle"],
        ["b/c.txt", 1, 1, "needle"],
      ],
    );
    assert.deepEqual(run.matches[0]!.ranges, [
      [4, 10],
      [15, 21],
    ]);
    assert.equal(run.summary.filesScanned, 3);
    assert.equal(run.summary.filesMatched, 2);
    assert.equal(run.summary.matches, 2);
    assert.equal(run.summary.bytesScanned, 32 + 7 + 8);
    assert.equal(run.summary.limitReached, false);
  });

  it("treats regex characters literally unless regex is set", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "a.c\nabc\n" });
    assert.deepEqual(
      (await runSearch(sandbox, { pattern: "a.c" })).matches.map((m) => m.line),
      [1],
    );
    assert.deepEqual(
      (await runSearch(sandbox, { pattern: "a.c", regex: true })).matches.map((m) => m.line),
      [1, 2],
    );
    assert.deepEqual(
      (await runSearch(sandbox, { pattern: "^abc$", regex: true })).matches.map((m) => m.line),
      [2],
    );
  });

  it("case-insensitive and whole-word options", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "Foo\nfoobar\nfoo_x\nbar foo.\n" });
    assert.deepEqual(
      (await runSearch(sandbox, { pattern: "foo" })).matches.map((m) => m.line),
      [2, 3, 4],
    );
    assert.deepEqual(
      (await runSearch(sandbox, { pattern: "foo", caseInsensitive: true })).matches.map((m) => m.line),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      (await runSearch(sandbox, { pattern: "foo", wholeWord: true, caseInsensitive: true })).matches.map((m) => m.line),
      [1, 4],
    );
  });

  it("returns context lines before and after, and strips CR", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "l1\r\nl2\r\nhit\r\nl4\r\n" });
    const [m] = (await runSearch(sandbox, { pattern: "hit", contextBefore: 5, contextAfter: 1 })).matches;
    assert.equal(m!.text, "hit");
    assert.deepEqual(m!.before, ["l1", "l2"]);
    assert.deepEqual(m!.after, ["l4"]);
  });

  it("truncates long lines and marks them", async () => {
    const { sandbox } = await searchRoot({ "a.txt": `${"x".repeat(50)}needle${"y".repeat(1000)}\n` });
    const [m] = (await runSearch(sandbox, { pattern: "needle", maxLineLength: 20 })).matches;
    assert.equal(m!.text, "x".repeat(20));
    assert.equal(m!.truncated, true);
    assert.equal(m!.column, 51);
  });

  it("files_with_matches and count modes report one message per file", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "x\nx\nx\n", "b.txt": "y\n", "c.txt": "x\n" });
    const files = await runSearch(sandbox, { pattern: "x", mode: "files" });
    assert.deepEqual(files.files, [
      { path: "a.txt", matches: 1 },
      { path: "c.txt", matches: 1 },
    ]);
    assert.equal(files.matches.length, 0);
    const counts = await runSearch(sandbox, { pattern: "x", mode: "count" });
    assert.deepEqual(counts.files, [
      { path: "a.txt", matches: 3 },
      { path: "c.txt", matches: 1 },
    ]);
    assert.equal(counts.summary.matches, 4);
  });

  it("stops at max_matches and max_matches_per_file, and says a limit was reached", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "x\n".repeat(10), "b.txt": "x\n".repeat(10) });
    const total = await runSearch(sandbox, { pattern: "x", maxMatches: 13 });
    assert.equal(total.matches.length, 13);
    assert.equal(total.summary.limitReached, true);
    const perFile = await runSearch(sandbox, { pattern: "x", maxMatchesPerFile: 2 });
    assert.deepEqual(
      perFile.matches.map((m) => `${m.path}:${m.line}`),
      ["a.txt:1", "a.txt:2", "b.txt:1", "b.txt:2"],
    );
    assert.equal(perFile.summary.limitReached, true);
  });

  it("lowers max_matches (and its default) to the server's limits.max_search_matches", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "x\n".repeat(10) });
    for (const maxMatches of [0, 1_000_000]) {
      const run = await runSearch(sandbox, { pattern: "x", maxMatches }, { maxSearchMatches: 3 });
      assert.equal(run.matches.length, 3);
      assert.equal(run.summary.limitReached, true);
    }
  });

  it("returns every match of a file with more matches than one worker answer holds", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "x\n".repeat(5000) });
    const run = await runSearch(sandbox, { pattern: "x", maxLineLength: 10_000 });
    assert.equal(run.matches.length, 5000);
    assert.deepEqual(
      run.matches.slice(-2).map((m) => m.line),
      [4999, 5000],
    );
    assert.equal(run.summary.limitReached, false);
  });

  it("searches one file when the path names a file", async () => {
    const { sandbox } = await searchRoot({ "dir/a.txt": "needle\n", "b.txt": "needle\n" });
    const run = await runSearch(sandbox, { path: "dir/a.txt", pattern: "needle" });
    assert.deepEqual(
      run.matches.map((m) => m.path),
      ["dir/a.txt"],
    );
  });

  it("joins result paths to the folder the client named", async () => {
    const { sandbox } = await searchRoot({ "dir/sub/a.txt": "needle\n" });
    const run = await runSearch(sandbox, { path: "dir", pattern: "needle" });
    assert.deepEqual(
      run.matches.map((m) => m.path),
      ["dir/sub/a.txt"],
    );
  });
});
