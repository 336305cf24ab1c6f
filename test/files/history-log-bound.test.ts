import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// A file's log is no longer read back after every append (only once its size says it may hold
// more than twice the bound): it must still be cut, keep the newest entries, and a log folder
// removed while the server runs must come back on the next change.
describe("the per-file change log, bounded without reading it back on every append", () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-history-bound-"));
    server = await startTestServer({ history: { dir, maxEntriesPerFile: 3 } });
    await writeFile(join(server.root, "e.txt"), "one alpha\n");
  });
  after(() => server.close());

  it("is cut back to the newest entries once it holds more than twice the bound", async () => {
    for (let round = 0; round < 25; round++) {
      const [from, to] = round % 2 === 0 ? ["alpha", "omega"] : ["omega", "alpha"];
      await server.fileTools.editFile({
        path: "e.txt",
        edits: [{ kind: { case: "replace", value: { oldText: from, newText: to } } }],
      });
      const [log] = (await readdir(join(dir, "log"))).filter((n) => n.endsWith(".jsonl"));
      const lines = (await readFile(join(dir, "log", log!), "utf8")).split("\n").filter((l) => l !== "");
      assert.ok(
        lines.length <= 6,
        `after ${round + 1} edits the log holds ${lines.length} lines, over twice the bound of 3`,
      );
    }
    const { changes } = await server.fileTools.listFileHistory({ path: "e.txt", limit: 100 });
    assert.ok(changes.length >= 3, `${changes.length} entries kept`);
    assert.equal(changes[0]?.sha256After, sha256Hex(await readFile(join(server.root, "e.txt"))));
  });

  it("a failed edit writes no entry and leaves no lock in the log folder; the next edit is recorded", async () => {
    await writeFile(join(server.root, "f.txt"), "one two\n");
    await server.fileTools.editFile({
      path: "f.txt",
      edits: [{ kind: { case: "replace", value: { oldText: "one", newText: "1" } } }],
    });
    const failed = await server.fileTools
      .editFile({ path: "f.txt", edits: [{ kind: { case: "replace", value: { oldText: "absent", newText: "x" } } }] })
      .then(
        () => "applied",
        (err: Error) => err.message,
      );
    assert.match(failed, /not found/);
    assert.deepEqual(
      (await readdir(join(dir, "log"))).filter((n) => !n.endsWith(".jsonl")),
      [],
      "no lock file left",
    );
    await server.fileTools.editFile({
      path: "f.txt",
      edits: [{ kind: { case: "replace", value: { oldText: "two", newText: "2" } } }],
    });
    const { changes } = await server.fileTools.listFileHistory({ path: "f.txt", limit: 10 });
    assert.deepEqual(
      changes.map((c) => c.sha256After),
      [sha256Hex("1 2\n"), sha256Hex("1 two\n")],
    );
    assert.equal(changes[1]?.beforeAvailable, true);
  });

  it("records the next change after the log folder was removed", async () => {
    await rm(join(dir, "log"), { recursive: true });
    await server.fileTools.writeFile({ path: "w.txt", content: { case: "text", value: "after the folder went\n" } });
    const { changes } = await server.fileTools.listFileHistory({ path: "w.txt", limit: 10 });
    assert.equal(changes.length, 1);
    assert.equal(changes[0]?.sha256After, sha256Hex("after the folder went\n"));
  });
});
