import assert from "node:assert/strict";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { loadSkillFolder } from "../../src/skills/load/load-skill-folder.js";
import { runSkillsValidate } from "../../src/skills/load/validate-folders.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { expectCallError } from "./expect-call-error.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

// A skill's resource slots are its own files: a slot folder (or a file in it) that resolves
// outside the skill folder's real path is not a slot, even when it stays inside the skill root.

/** slotRoot builds a root where alpha links assets/ to its sibling beta and references/ to the root. */
async function slotRoot(): Promise<{ root: string; alpha: string }> {
  const root = await tempDir("slots");
  await writeFiles(root, {
    "alpha/SKILL.md": skillMd("alpha", "The skill whose slots link around."),
    "alpha/shared/tools/run.sh": "echo run\n",
    "beta/SKILL.md": skillMd("beta", "A sibling skill."),
    "beta/secret.txt": "beta's own file\n",
  });
  const alpha = join(root, "alpha");
  await symlink("shared/tools", join(alpha, "scripts"));
  await symlink("../beta", join(alpha, "assets"));
  await symlink("..", join(alpha, "references"));
  return { root, alpha };
}

function outsideMessage(alpha: string, slot: string): string {
  return `${join(alpha, slot)} is a symlink that does not lead to a folder inside the skill folder ${alpha}, so the ${slot} slot is not served (the skill still loads): move or copy the files into ${slot}/ instead of linking them.`;
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("slot folders stay inside their skill folder", () => {
  it("loads the skill without slots that link out of its folder, and warns about each", async () => {
    const { root, alpha } = await slotRoot();
    const result = await loadSkillFolder(alpha, { namespace: "ns", maxSkillFileBytes: 65536, root });
    assert.ok(result.skill);
    assert.deepEqual(result.skill.slots, [{ name: "scripts", files: [{ path: "run.sh", size: 9 }] }]);
    assert.deepEqual(result.errors, [
      {
        path: join(alpha, "references"),
        field: "resources",
        line: 0,
        name: "ns/alpha",
        severity: "warning",
        message: outsideMessage(alpha, "references"),
      },
      {
        path: join(alpha, "assets"),
        field: "resources",
        line: 0,
        name: "ns/alpha",
        severity: "warning",
        message: outsideMessage(alpha, "assets"),
      },
    ]);
  });

  it("refuses a slot linked to the skill folder itself", async () => {
    const root = await tempDir("slot-self");
    await writeFiles(root, { "s/SKILL.md": skillMd("local/s", "d") });
    await symlink(".", join(root, "s", "references"));
    const result = await loadSkillFolder(join(root, "s"), { maxSkillFileBytes: 65536, root });
    assert.deepEqual(result.skill?.slots, []);
    assert.deepEqual(
      result.errors.map((e) => e.message),
      [outsideMessage(join(root, "s"), "references")],
    );
  });

  it("reports the left-out slots as warnings in toolhost skills validate", async () => {
    const { root, alpha } = await slotRoot();
    let text = "";
    const out = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    assert.equal(await runSkillsValidate(["--namespace", "ns", root], out), 0);
    assert.deepEqual(text.trimEnd().split("\n"), [
      `${join(alpha, "SKILL.md")}: ok: ns/alpha`,
      `${join(root, "beta", "SKILL.md")}: ok: ns/beta`,
      `${join(alpha, "references")}:0: warning: [resources] ${outsideMessage(alpha, "references")}`,
      `${join(alpha, "assets")}:0: warning: [resources] ${outsideMessage(alpha, "assets")}`,
      "2 skill(s) valid, 0 error(s), 2 warning(s)",
    ]);
  });
});

describe("slot containment over gRPC", () => {
  let server: TestServer;
  let root: string;
  let alpha: string;

  before(async () => {
    ({ root, alpha } = await slotRoot());
    server = await startTestServer({ skills: [{ path: root, namespace: "ns" }] });
  });

  after(async () => {
    await server.close();
  });

  it("does not read another skill's files through a slot link", async () => {
    const read = (slot: string, path: string) =>
      collect(server.skillCatalog.readSkillResource({ name: "ns/alpha", slot, path }));
    await expectCallError(() => read("assets", "SKILL.md"), Code.NotFound, "NOT_FOUND", [
      'skill "ns/alpha" has no assets/ folder',
    ]);
    await expectCallError(() => read("references", "beta/secret.txt"), Code.NotFound, "NOT_FOUND", [
      'skill "ns/alpha" has no references/ folder',
    ]);
  });

  it("reads a slot linked to a folder inside the skill folder", async () => {
    const parts = await collect(
      server.skillCatalog.readSkillResource({ name: "ns/alpha", slot: "scripts", path: "run.sh" }),
    );
    assert.equal(
      parts
        .filter((p) => p.part.case === "text")
        .map((p) => p.part.value)
        .join(""),
      "echo run\n",
    );
  });

  it("lists only the slots inside the skill folder", async () => {
    const { resources } = await server.skillCatalog.listSkillResources({ name: "ns/alpha" });
    assert.deepEqual(
      resources.map((r) => [r.slot, r.path]),
      [["scripts", "run.sh"]],
    );
    const { descriptor } = await server.skillCatalog.getSkillDescriptor({ name: "ns/alpha" });
    assert.deepEqual(
      descriptor?.resourceSlots.map((s) => [s.name, s.paths]),
      [["scripts", ["run.sh"]]],
    );
    const { skills } = await server.skillCatalog.listSkills({ query: "link around" });
    assert.deepEqual(
      skills[0]?.resourceSlots.map((s) => [s.name, s.paths]),
      [["scripts", ["run.sh"]]],
    );
  });

  it("reports each left-out slot in ListSkillErrors without naming where it points", async () => {
    const { errors } = await server.skillCatalog.listSkillErrors({});
    assert.deepEqual(
      errors.map((e) => [e.path, e.field, e.name, e.message]),
      [
        [join(alpha, "assets"), "resources", "ns/alpha", outsideMessage(alpha, "assets")],
        [join(alpha, "references"), "resources", "ns/alpha", outsideMessage(alpha, "references")],
      ],
    );
    assert.ok(errors.every((e) => !e.message.includes("beta")));
  });
});
