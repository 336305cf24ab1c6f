import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// A file's log is cut to its newest entries once it holds twice the bound: read, write the newest
// to a temporary file, rename it over the log. An entry appended between that read and rename (a
// concurrent change of the same file, here or in a replica) was dropped with the old log.
describe("the per-file log cut, under concurrent changes of one file", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ history: { maxEntriesPerFile: 3 } });
  });
  after(() => server.close());

  it("keeps the last change's entry", async () => {
    let missing = 0;
    for (let round = 0; round < 30; round++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          server.fileTools.writeFile({ path: "t.txt", content: { case: "text", value: `r${round} w${i}\n` } }),
        ),
      );
      const now = sha256Hex(await readFile(join(server.root, "t.txt")));
      const { changes } = await server.fileTools.listFileHistory({ path: "t.txt", limit: 1000 });
      if (!changes.some((c) => c.sha256After === now)) missing++;
    }
    assert.equal(missing, 0, `in ${missing} of 30 rounds the change that left the file as it is had no entry`);
  });
});
