import assert from "node:assert/strict";
import { appendFile, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Review: a log whose last line was torn (a crash or a full disk mid-append leaves a line with
// no newline) must lose only that entry. The append wrote the next record straight after the
// torn bytes, so the two became one unparseable line and the next change's entry was lost too.
describe("a change log with a torn last line", () => {
  let server: TestServer;
  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolhost-history-torn-"));
    server = await startTestServer({ history: { dir } });
    await writeFile(join(server.root, "t.txt"), "one alpha\n");
    await server.fileTools.editFile({
      path: "t.txt",
      edits: [{ kind: { case: "replace", value: { oldText: "alpha", newText: "beta" } } }],
    });
    const [log] = (await readdir(join(dir, "log"))).filter((n) => n.endsWith(".jsonl"));
    await appendFile(join(dir, "log", log!), '{"time":1,"operation":"edit","cal');
  });
  after(() => server.close());

  it("still records and lists the next changes", async () => {
    await server.fileTools.editFile({
      path: "t.txt",
      edits: [{ kind: { case: "replace", value: { oldText: "beta", newText: "gamma" } } }],
    });
    await server.fileTools.writeFile({ path: "t.txt", content: { case: "text", value: "two delta\n" } });
    const { changes } = await server.fileTools.listFileHistory({ path: "t.txt", limit: 10 });
    assert.deepEqual(
      changes.map((c) => c.sha256After),
      [sha256Hex("two delta\n"), sha256Hex("one gamma\n"), sha256Hex("one beta\n")],
    );
    const restored = await server.fileTools.restoreFile({ path: "t.txt", sha256: sha256Hex("one beta\n") });
    assert.equal(restored.sha256, sha256Hex("one beta\n"));
  });
});
