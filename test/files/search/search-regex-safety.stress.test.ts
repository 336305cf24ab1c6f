import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { startTestServer } from "../../support/test-server.js";
import { insideRoot } from "./search-fixture.js";

const catastrophic = "(a+)+$";
const evilLines = `${"a".repeat(40)}!\n`.repeat(50);

describe("searchFiles: a catastrophic regular expression and the other callers", () => {
  // The search's budget (20 s) is far longer than ten reads take on any machine: a search that
  // ends before the tenth read (its budget ran out) means the reads were held up behind it.
  it("keeps serving another client's ReadFile calls while a catastrophic search runs, and closes what the worker held", async () => {
    const server = await startTestServer({ limits: { searchTimeBudgetMs: 20_000 } });
    try {
      await writeFile(path.join(server.root, "evil.txt"), evilLines);
      await writeFile(path.join(server.root, "small.txt"), "hello\n");
      let searching = true;
      const search = (async () => {
        try {
          for await (const _ of server.fileTools.searchFiles({ pattern: catastrophic, regex: true })) void _;
          return undefined;
        } catch (err) {
          return err;
        } finally {
          searching = false;
        }
      })();
      let readsWhileSearching = 0;
      for (let i = 0; i < 10; i++) {
        for await (const _ of server.fileTools.readFile({ path: "small.txt" })) void _;
        if (searching) readsWhileSearching++;
      }
      const caught = await search;
      assert.equal(readsWhileSearching, 10, "ReadFile calls waited for the catastrophic search");
      assert.ok(caught instanceof ConnectError, `expected an error, got ${String(caught)}`);
      assert.match(caught.message, /took more than 20000 ms/);
      // Threads' own descriptors (event polls, pipes) come and go with the workers; none may name a file of the root.
      assert.equal(await insideRoot(server.root), 0, "a descriptor of the searched file is still open");
    } finally {
      await server.close();
    }
  });
});
