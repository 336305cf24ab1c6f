import assert from "node:assert/strict";
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { startTestServer } from "../../support/test-server.js";

const catastrophic = "(a+)+$";
const evilLines = `${"a".repeat(40)}!\n`.repeat(50);

describe("searchFiles: a catastrophic regular expression and the other callers", () => {
  it("keeps serving another client's ReadFile calls while a catastrophic search runs, and closes what the worker held", async () => {
    const server = await startTestServer({ limits: { searchTimeBudgetMs: 1500 } });
    try {
      await writeFile(path.join(server.root, "evil.txt"), evilLines);
      await writeFile(path.join(server.root, "small.txt"), "hello\n");
      const fdsBefore = (await readdir("/proc/self/fd")).length;
      let reads = 0;
      let searching = true;
      const reader = (async () => {
        while (searching && reads < 10_000) {
          for await (const _ of server.fileTools.readFile({ path: "small.txt" })) void _;
          reads++;
        }
      })();
      let caught: unknown;
      try {
        for await (const _ of server.fileTools.searchFiles({ pattern: catastrophic, regex: true })) void _;
      } catch (err) {
        caught = err;
      } finally {
        searching = false;
      }
      await reader;
      assert.ok(caught instanceof ConnectError, `expected an error, got ${String(caught)}`);
      assert.match(caught.message, /took more than 1500 ms/);
      assert.ok(reads >= 10, `ReadFile completed only ${reads} times during the search`);
      assert.ok((await readdir("/proc/self/fd")).length <= fdsBefore + 2);
    } finally {
      await server.close();
    }
  });
});
