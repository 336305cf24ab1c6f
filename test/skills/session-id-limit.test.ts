import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { ActivationStore } from "../../src/skills/catalog/activations.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { expectCallError } from "./expect-call-error.js";
import { expectToolhostError, skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

// Session ids are keys the server keeps: 100 ActivateSkill calls with 4 MB ids once took a
// server from 97 MB to 536 MB, because only bodies counted against max_activated_bytes.

const tooLong = "s".repeat(129);
const limitMessage = "session_id is too long: 129 bytes, over the limit of 128 bytes; use a short id such as a UUID.";

describe("ActivationStore: session id size", () => {
  it("refuses a session id over 128 bytes, counted in UTF-8", async () => {
    const store = new ActivationStore(1_000_000);
    await expectToolhostError(() => store.activate(tooLong, "a/x", "d", "b"), "INVALID_ARGUMENT", [limitMessage]);
    // 65 characters but 130 bytes.
    await expectToolhostError(() => store.activate("é".repeat(65), "a/x", "d", "b"), "INVALID_ARGUMENT", [
      "session_id",
      "130 bytes",
      "128",
    ]);
    await expectToolhostError(() => store.activeNames(tooLong), "INVALID_ARGUMENT", [limitMessage]);
    await expectToolhostError(() => store.deactivate(tooLong, "a/x"), "INVALID_ARGUMENT", [limitMessage]);
    assert.deepEqual(store.usage(), { bytes: 0, sessions: 0 });
  });

  it("accepts a session id of exactly 128 bytes", () => {
    const store = new ActivationStore(1_000_000);
    store.activate("s".repeat(128), "a/x", "d", "b");
    assert.deepEqual([...store.activeNames("s".repeat(128))], ["a/x"]);
  });

  it("counts session ids and skill names against the budget", () => {
    // Each session costs 100 (id) + 3 (name) + 1 (body) = 104 bytes: two fit in 250, three do not.
    const store = new ActivationStore(250);
    for (const id of ["a", "b", "c"]) store.activate(id.repeat(100), "n/x", "d", "x");
    assert.deepEqual(store.usage(), { bytes: 208, sessions: 2 });
    assert.deepEqual([...store.activeNames("a".repeat(100))], []);
  });

  it("gives the key bytes back when a session's last skill is deactivated", () => {
    const store = new ActivationStore(1000);
    store.activate("session", "n/x", "d", "body");
    store.deactivate("session", "n/x");
    assert.deepEqual(store.usage(), { bytes: 0, sessions: 0 });
  });
});

describe("SkillCatalog: session id size over gRPC", () => {
  let server: TestServer;

  before(async () => {
    const root = await tempDir("session-id");
    await writeFiles(root, { "a/SKILL.md": skillMd("local/a", "d") });
    server = await startTestServer({ skills: [{ path: root }] });
  });

  after(async () => {
    await server.close();
  });

  it("refuses a session_id over 128 bytes with INVALID_ARGUMENT in every call that takes one", async () => {
    const words = [limitMessage];
    await expectCallError(
      () => server.skillCatalog.activateSkill({ name: "local/a", sessionId: tooLong }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      words,
    );
    // Refused before the name is looked up: the size of the id is the first thing wrong.
    await expectCallError(
      () => server.skillCatalog.activateSkill({ name: "local/none", sessionId: tooLong }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      words,
    );
    await expectCallError(
      () => server.skillCatalog.deactivateSkill({ name: "local/a", sessionId: tooLong }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      words,
    );
    await expectCallError(
      () => server.skillCatalog.listSkills({ sessionId: tooLong }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      words,
    );
  });

  it("accepts a 128-byte session_id", async () => {
    const sessionId = "s".repeat(128);
    assert.equal((await server.skillCatalog.activateSkill({ name: "local/a", sessionId })).skill?.active, true);
    assert.equal((await server.skillCatalog.listSkills({ sessionId })).skills[0]?.active, true);
  });
});
