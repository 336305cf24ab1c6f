import assert from "node:assert/strict";
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { identityOf, type TextPage } from "../../src/files/read/text-page.js";
import { collect, readRoot } from "./read-helpers.js";

// A cursor's start is checked against the file's identity (inode, size, mtime, ctime). A
// rewrite in place with as many bytes inside one timestamp tick (a coarse-clock filesystem,
// or one without multigrain timestamps) keeps that identity, and the start would then be inside
// a line or a character, its text and line numbers reported as right. The reader also checks
// that the byte before the start is a line break: otherwise the start is stale.
describe("readText from a page start that is not after a line break", () => {
  it("is READ_CURSOR_STALE, not a page that starts inside a line or a character", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "p.txt"), "first line\ncafé au lait\nlast\n");
    const identity = identityOf(await stat(path.join(root, "p.txt")));
    for (const byte of [12, 15]) {
      // 12 is inside "café", 15 is inside the "é" of it.
      const page: TextPage = { start: { byte, line: 1, identity }, collectBytes: 1 << 20 };
      await assert.rejects(collect(sandbox, { path: "p.txt", mode: "text", offset: 1, page }), (err: Error) => {
        assert.equal((err as { reason?: string }).reason, "READ_CURSOR_STALE");
        assert.match(err.message, /^"p\.txt" changed since the page this cursor came from/);
        return true;
      });
    }
    const good: TextPage = { start: { byte: 11, line: 1, identity }, collectBytes: 1 << 20 };
    const read = await collect(sandbox, { path: "p.txt", mode: "text", offset: 1, page: good });
    assert.equal(read.text, "café au lait\nlast\n");
  });
});
