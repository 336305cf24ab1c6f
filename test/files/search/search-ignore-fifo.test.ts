import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { startFifoWriter } from "../../support/fifo-writer.js";
import { runSearch, searchRoot } from "./search-fixture.js";

describe("searchFiles: a FIFO named .gitignore in a folder above the search path", () => {
  it("is never opened (a writer blocked on it stays blocked) and the search still runs", async () => {
    const { root, sandbox } = await searchRoot({ "sub/a.txt": "TOKEN\n" });
    const fifo = path.join(root, ".gitignore");
    execFileSync("mkfifo", [fifo]);
    const writer = await startFifoWriter(fifo);
    try {
      const run = await runSearch(sandbox, { path: "sub", pattern: "TOKEN" });
      assert.equal(run.matches.length, 1);
      assert.equal(writer.stillBlocked(), true, "the search opened the FIFO above it as an ignore file");
    } finally {
      await writer.stop();
    }
  });
});
