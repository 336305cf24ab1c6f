// A scope's skill namespaces: the catalog a caller sees, and OUT_OF_SCOPE for any other; and
// ListTools of a --read-only server.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { failureOf } from "../files/write-fixtures.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { startTestServer } from "../support/test-server.js";
import { makeTlsFixtures, writeTokensFile } from "../support/tls-fixtures.js";

async function skill(root: string, name: string): Promise<void> {
  await mkdir(path.join(root, name, "references"), { recursive: true });
  await writeFile(
    path.join(root, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name}.\n`,
  );
  await writeFile(path.join(root, name, "references", "notes.md"), `notes of ${name}\n`);
}

describe("skill namespaces per scope", () => {
  let secure: SecureServer;
  const teamA = "th_team-a-token-00000000000000000000000000";
  const everyone = "th_everyone-token-0000000000000000000000000";

  before(async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-ns-")));
    const root = path.join(dir, "root");
    await mkdir(root);
    await skill(path.join(dir, "skills-a"), "alpha");
    await skill(path.join(dir, "skills-b"), "beta");
    const tokensFile = path.join(dir, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "team-a", token: teamA, scope: { tier: "read", namespaces: ["team-a"] } },
      { id: "everyone", token: everyone, scope: { tier: "read" } },
    ]);
    secure = await startSecureServer({
      roots: [{ path: root }],
      skills: [
        { path: path.join(dir, "skills-a"), namespace: "team-a" },
        { path: path.join(dir, "skills-b"), namespace: "team-b" },
      ],
      tls: await makeTlsFixtures(),
      tokensFile,
    });
  });

  after(async () => {
    await secure?.close();
  });

  it("ListSkills shows only the caller's namespaces", async () => {
    const scoped = await secure.clients(teamA).skillCatalog.listSkills({});
    assert.deepEqual(
      scoped.skills.map((s) => s.name),
      ["team-a/alpha"],
    );
    const all = await secure.clients(everyone).skillCatalog.listSkills({});
    assert.deepEqual(all.skills.map((s) => s.name).sort(), ["team-a/alpha", "team-b/beta"]);
  });

  it("every call naming a skill of another namespace is OUT_OF_SCOPE, naming the namespace", async () => {
    const catalog = secure.clients(teamA).skillCatalog;
    const calls: [string, () => Promise<unknown>][] = [
      ["ActivateSkill", () => catalog.activateSkill({ name: "team-b/beta", sessionId: "s" })],
      ["GetSkillDescriptor", () => catalog.getSkillDescriptor({ name: "team-b/beta" })],
      ["ListSkillResources", () => catalog.listSkillResources({ name: "team-b/beta" })],
      [
        "ReadSkillResource",
        async () => {
          for await (const _ of catalog.readSkillResource({
            name: "team-b/beta",
            slot: "references",
            path: "notes.md",
          })) {
            // drain
          }
        },
      ],
      ["ListSkills namespace", () => catalog.listSkills({ namespace: "team-b" })],
      ["ActivateSkill unknown namespace", () => catalog.activateSkill({ name: "nobody/none", sessionId: "s" })],
    ];
    for (const [name, call] of calls) {
      const failure = await failureOf(call());
      assert.deepEqual([failure.code, failure.reason], [Code.PermissionDenied, "OUT_OF_SCOPE"], name);
      assert.match(failure.message, /Namespace "(team-b|nobody)" is not in your scope/, name);
      assert.equal(failure.metadata["lacks"], "namespace", name);
    }
    const own = await catalog.activateSkill({ name: "team-a/alpha", sessionId: "s" });
    assert.match(own.skill?.body ?? "", /Do alpha/);
  });

  it("two callers with the same session_id keep separate activations", async () => {
    const a = secure.clients(teamA).skillCatalog;
    const b = secure.clients(everyone).skillCatalog;
    await a.activateSkill({ name: "team-a/alpha", sessionId: "shared" });
    const seenByA = await a.listSkills({ sessionId: "shared" });
    assert.deepEqual(
      seenByA.skills.map((s) => [s.name, s.active]),
      [["team-a/alpha", true]],
    );
    const seenByB = await b.listSkills({ sessionId: "shared" });
    assert.deepEqual(
      seenByB.skills.filter((s) => s.active).map((s) => s.name),
      [],
    );
    assert.equal((await b.deactivateSkill({ name: "team-a/alpha", sessionId: "shared" })).wasActive, false);
    assert.equal((await a.listSkills({ sessionId: "shared" })).skills[0]?.active, true);
  });

  it("a --read-only server lists no writing tools", async () => {
    const server = await startTestServer({ readOnly: true });
    try {
      const { tools } = await server.fileTools.listTools({});
      assert.deepEqual(
        tools.filter((t) => t.writes).map((t) => t.name),
        [],
      );
      assert.ok(tools.some((t) => t.name === "skill/file-read"));
    } finally {
      await server.close();
    }
  });
});
