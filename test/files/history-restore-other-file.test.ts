import assert from "node:assert/strict";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { refusalOf } from "../support/call-outcome.js";

// RestoreFile puts back "one recorded content of a file" (history.proto). The blob store is shared
// by every file of every root, so a restore that only asks whether a blob exists copies any other
// file's earlier content — another root's, a file the caller never saw — into the named file, and
// answers whether some file ever held a guessed content.
describe("RestoreFile restores only contents recorded for that file", () => {
  let server: TestServer;
  let rootB: string;
  before(async () => {
    const rootA = await mkdtemp(join(tmpdir(), "toolhost-test-a-"));
    rootB = await mkdtemp(join(tmpdir(), "toolhost-test-b-"));
    server = await startTestServer({ roots: [{ path: rootA }, { path: rootB }], history: true });
  });
  after(() => server.close());

  it("refuses a content only another file's history holds, and changes nothing", async () => {
    const secret = "api_key=hunter2\n";
    await server.fileTools.writeFile({ path: join(rootB, "secret.env"), content: { case: "text", value: secret } });
    await server.fileTools.writeFile({
      path: join(rootB, "secret.env"),
      content: { case: "text", value: "rotated\n" },
    });
    await server.fileTools.writeFile({ path: "mine.txt", content: { case: "text", value: "mine\n" } });
    assert.equal(
      (await refusalOf(server.fileTools.restoreFile({ path: "mine.txt", sha256: sha256Hex(secret) }))).reason,
      "NOT_IN_HISTORY",
    );
    assert.equal(await readFile(join(server.root, "mine.txt"), "utf8"), "mine\n");
    assert.equal(
      (await refusalOf(server.fileTools.restoreFile({ path: "fresh.txt", sha256: sha256Hex(secret) }))).reason,
      "NOT_IN_HISTORY",
    );
    await assert.rejects(readFile(join(server.root, "fresh.txt")));
  });

  it("still restores a content the file itself held", async () => {
    await server.fileTools.writeFile({ path: "own.txt", content: { case: "text", value: "v1\n" } });
    await server.fileTools.writeFile({ path: "own.txt", content: { case: "text", value: "v2\n" } });
    await writeFile(join(server.root, "own.txt"), "v2\n");
    const restored = await server.fileTools.restoreFile({ path: "own.txt", sha256: sha256Hex("v1\n") });
    assert.equal(restored.sha256, sha256Hex("v1\n"));
    assert.equal(await readFile(join(server.root, "own.txt"), "utf8"), "v1\n");
  });
});
