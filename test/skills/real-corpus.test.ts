import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { SkillCatalogIndex } from "../../src/skills/catalog/skill-catalog.js";
import { corpusDir } from "./skill-fixtures.js";

// 63 SKILL.md files from public Agent Skills collections, read in place, served from one skill
// root with a declared namespace as a user would point toolhost at a checkout of them.

const realRoot = join(corpusDir, "real");

async function skillFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.name === "SKILL.md") found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

describe("the real corpus", () => {
  it("lists every SKILL.md or reports it with a reason", async () => {
    const files = await skillFiles(realRoot);
    assert.equal(files.length, 63);
    const index = new SkillCatalogIndex({
      roots: [{ path: realRoot, namespace: "corpus" }],
      maxSkillFileBytes: 1024 * 1024,
    });
    await index.reload();
    const loaded = new Set(index.skills().map((s) => s.skillFile));
    const reported = new Map(index.errors().map((e) => [e.path, e]));
    for (const file of files) {
      const error = reported.get(file);
      assert.ok(
        loaded.has(file) !== (error !== undefined),
        `${file} must be either loaded or reported, not ${loaded.has(file) ? "both" : "neither"}`,
      );
      if (error !== undefined) assert.ok(error.message.length > 20 && error.field !== "", `${file}: ${error.message}`);
    }
    // Nothing outside the 63 files is reported (no root-level noise).
    assert.deepEqual(
      [...reported.keys()].filter((p) => !files.includes(p)),
      [],
    );

    console.log(`real corpus: ${loaded.size} of ${files.length} SKILL.md files load; ${reported.size} are reported`);
    assert.equal(loaded.size, 59);
    assert.deepEqual(
      index.errors().map((e) => [relative(realRoot, e.path), e.field, e.message.replaceAll(realRoot, "<real>")]),
      [
        [
          "anthropics__claude-plugins-official/external_plugins__telegram__skills__access/SKILL.md",
          "name",
          'name "corpus/access" is already used by <real>/anthropics__claude-plugins-official/external_plugins__discord__skills__access/SKILL.md, which was found first and is served; rename one of them or serve their roots with different namespaces.',
        ],
        [
          "openai__skills/skills__.system__skill-creator/SKILL.md",
          "name",
          'name "corpus/skill-creator" is already used by <real>/anthropics__skills/skills__skill-creator/SKILL.md, which was found first and is served; rename one of them or serve their roots with different namespaces.',
        ],
        [
          "thereisnotime__skills-collection/skills__affaan-m--everything-claude-code__docs__ja-JP__skills__verification-loop/SKILL.md",
          "frontmatter",
          "SKILL.md has no YAML frontmatter: line 1 must be '---', found \"# 検証ループスキル\". Start the file with '---', then `name` and `description` lines, then '---'.",
        ],
        [
          "thereisnotime__skills-collection/skills__alirezarezvani--claude-skills__.gemini__skills__a11y-audit/SKILL.md",
          "frontmatter",
          "SKILL.md has no YAML frontmatter: line 1 must be '---', found \"../../../engineering-team/a11y-audit/skills/a11y-audit/SK...\". Start the file with '---', then `name` and `description` lines, then '---'. The file holds only a path: it looks like a symlink stored as text (git core.symlinks=false); restore the link or copy the target file.",
        ],
      ],
    );
  });

  it("loads the collections' quirks: spaces in names, unquoted colons, string tool lists, CRLF", async () => {
    const index = new SkillCatalogIndex({
      roots: [{ path: realRoot, namespace: "corpus" }],
      maxSkillFileBytes: 1024 * 1024,
    });
    await index.reload();
    const byName = new Map(index.skills().map((s) => [s.name, s]));
    assert.ok(byName.has("corpus/Ahrefs-Automation"));
    assert.ok(byName.has("corpus/Active-Directory-Attacks"));
    assert.match(byName.get("corpus/loop-design-check")?.description ?? "", /Two actions: \(1\) WRITE a loop/);
    assert.deepEqual(byName.get("corpus/api-patterns")?.allowedTools, ["Read", "Write", "Edit", "Glob", "Grep"]);
    assert.deepEqual(byName.get("corpus/citation-management")?.allowedTools, ["Read", "Write", "Edit", "Bash"]);
    assert.ok(byName.has("corpus/geomaster"));
    assert.ok(byName.has("corpus/skill-creator"));
    assert.equal(byName.get("corpus/access")?.description.startsWith("Manage Discord channel access"), true);
  });
});
