import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { SkillCatalogIndex } from "../../src/skills/catalog/skill-catalog.js";
import { expectToolhostError, skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

async function catalogOf(files: Record<string, string>, namespace?: string) {
  const root = await tempDir("catalog");
  await writeFiles(root, files);
  const index = new SkillCatalogIndex({ roots: [{ path: root, namespace }], maxSkillFileBytes: 64 * 1024 });
  await index.reload();
  return { root, index };
}

describe("SkillCatalogIndex", () => {
  it("sorts skills by name and errors by path", async () => {
    const { index } = await catalogOf(
      { "z/SKILL.md": skillMd("a", "d"), "a/SKILL.md": skillMd("b", "d"), "y/SKILL.md": "nope", "b/SKILL.md": "nope" },
      "ns",
    );
    assert.deepEqual(
      index.skills().map((s) => s.name),
      ["ns/a", "ns/b"],
    );
    assert.deepEqual(
      index.errors().map((e) => e.path.split("/").slice(-2)[0]),
      ["b", "y"],
    );
  });

  it("refuses an empty name", async () => {
    const { index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d") });
    await expectToolhostError(() => index.get(""), "INVALID_ARGUMENT", ["name must not be empty"]);
  });

  it("answers SKILL_NOT_FOUND with the name for an unknown skill", async () => {
    const { index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d") });
    await expectToolhostError(() => index.get("local/nope"), "SKILL_NOT_FOUND", ["not found", '"local/nope"']);
  });

  it("answers INVALID_SKILL with the first problem for a skill that failed to load", async () => {
    const { index } = await catalogOf({ "a/SKILL.md": "---\nname: local/a\nsteps: x\n---\n" });
    await expectToolhostError(() => index.get("local/a"), "INVALID_SKILL", [
      'skill "local/a" failed to load: description is missing: add `description: ...`',
      "(ListSkillErrors lists every problem).",
    ]);
  });

  it("reads the body again on readFull, so a changed file is served as it is now", async () => {
    const { root, index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d", "", "old body\n") });
    await writeFile(join(root, "a", "SKILL.md"), skillMd("local/a", "d", "steps:\n  - one\n", "new body\n"));
    const { parsed, skill } = await index.readFull("local/a");
    assert.equal(parsed.body, "new body\n");
    assert.deepEqual(parsed.steps, [{ index: 1, content: "one" }]);
    assert.notEqual(skill.digest, index.get("local/a").digest);
  });

  it("answers SKILL_NOT_FOUND from readFull when SKILL.md was removed since the scan", async () => {
    const { root, index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d") });
    await rm(join(root, "a", "SKILL.md"));
    await expectToolhostError(() => index.readFull("local/a"), "SKILL_NOT_FOUND", [
      "not found",
      "SKILL.md was removed",
    ]);
  });

  it("answers INVALID_SKILL from readFull when SKILL.md broke since the scan", async () => {
    const { root, index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d") });
    await writeFile(join(root, "a", "SKILL.md"), "---\nname: local/a\n---\n");
    await expectToolhostError(() => index.readFull("local/a"), "INVALID_SKILL", ["description is missing"]);
  });

  it("tells listeners what a reload changed", async () => {
    const { root, index } = await catalogOf({
      "a/SKILL.md": skillMd("local/a", "d"),
      "b/SKILL.md": skillMd("local/b", "d"),
    });
    const seen: string[] = [];
    index.subscribe((events) => seen.push(...events.map((e) => `${e.kind} ${e.name}`)));
    await writeFiles(root, {
      "c/SKILL.md": skillMd("local/c", "d"),
      "a/SKILL.md": skillMd("local/a", "changed"),
      "b/SKILL.md": "---\nname: local/b\n---\n",
    });
    await index.reload();
    assert.deepEqual(seen, ["updated local/a", "added local/c", "removed local/b", "invalid local/b"]);
  });

  it("reports an update when only a resource file changed", async () => {
    const { root, index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d") });
    const seen: string[] = [];
    index.subscribe((events) => seen.push(...events.map((e) => `${e.kind} ${e.name}`)));
    await writeFiles(root, { "a/scripts/run.sh": "echo" });
    await index.reload();
    assert.deepEqual(seen, ["updated local/a"]);
  });

  it("collapses reloads requested during a scan into one more scan", async () => {
    const { index } = await catalogOf({ "a/SKILL.md": skillMd("local/a", "d") });
    const first = index.reload();
    const second = index.reload();
    const third = index.reload();
    assert.equal(second, third);
    await Promise.all([first, second, third]);
  });
});
