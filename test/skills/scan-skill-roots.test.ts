import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { scanSkillRoots, type ScanOptions } from "../../src/skills/load/scan-skill-roots.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

const options: ScanOptions = { maxSkillFileBytes: 64 * 1024 };

describe("scanSkillRoots", () => {
  it("finds skills at any depth, in hidden folders and nested inside other skills", async () => {
    const root = await tempDir("scan");
    await writeFiles(root, {
      "a/SKILL.md": skillMd("a", "d"),
      "a/web/SKILL.md": skillMd("a-web", "d"),
      "a/web/client/SKILL.md": skillMd("a-web-client", "d"),
      ".system/b/SKILL.md": skillMd("b", "d"),
      "group/c/SKILL.md": skillMd("c", "d"),
    });
    const result = await scanSkillRoots([{ path: root, namespace: "ns" }], options);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      result.skills.map((s) => [s.name, s.folder.slice(root.length + 1)]),
      [
        ["ns/b", ".system/b"],
        ["ns/a", "a"],
        ["ns/a-web", "a/web"],
        ["ns/a-web-client", "a/web/client"],
        ["ns/c", "group/c"],
      ],
    );
  });

  it("loads a root that is itself a skill folder", async () => {
    const root = await tempDir("self");
    await writeFiles(root, { "SKILL.md": skillMd("local/self", "d") });
    assert.deepEqual(
      (await scanSkillRoots([{ path: root }], options)).skills.map((s) => s.name),
      ["local/self"],
    );
  });

  it("does not look for skills inside resource slots, nor in .git or node_modules", async () => {
    const root = await tempDir("slots");
    await writeFiles(root, {
      "s/SKILL.md": skillMd("local/s", "d"),
      "s/references/example/SKILL.md": skillMd("local/example-in-docs", "d"),
      ".git/x/SKILL.md": skillMd("local/git", "d"),
      "node_modules/p/SKILL.md": skillMd("local/npm", "d"),
    });
    const result = await scanSkillRoots([{ path: root }], options);
    assert.deepEqual(
      result.skills.map((s) => s.name),
      ["local/s"],
    );
    assert.deepEqual(
      result.skills[0]?.slots.map((s) => [s.name, s.files.map((f) => f.path)]),
      [["references", ["example/SKILL.md"]]],
    );
  });

  it("lets the first root win a name collision and reports the second", async () => {
    const first = await tempDir("first");
    const second = await tempDir("second");
    await writeFiles(first, { "pdf/SKILL.md": skillMd("pdf", "first") });
    await writeFiles(second, { "pdf/SKILL.md": skillMd("pdf", "second"), "other/SKILL.md": skillMd("other", "d") });
    const result = await scanSkillRoots(
      [
        { path: first, namespace: "ns" },
        { path: second, namespace: "ns" },
      ],
      options,
    );
    assert.deepEqual(
      result.skills.map((s) => [s.name, s.description]),
      [
        ["ns/pdf", "first"],
        ["ns/other", "d"],
      ],
    );
    assert.deepEqual(result.errors, [
      {
        path: join(second, "pdf", "SKILL.md"),
        field: "name",
        line: 0,
        name: "ns/pdf",
        message: `name "ns/pdf" is already used by ${join(first, "pdf", "SKILL.md")}, which was found first and is served; rename one of them or serve their roots with different namespaces.`,
      },
    ]);
  });

  it("lets the first path win a collision inside one root", async () => {
    const root = await tempDir("same-root");
    await writeFiles(root, {
      "discord/access/SKILL.md": skillMd("access", "discord"),
      "telegram/access/SKILL.md": skillMd("access", "telegram"),
    });
    const result = await scanSkillRoots([{ path: root, namespace: "chat" }], options);
    assert.deepEqual(
      result.skills.map((s) => s.description),
      ["discord"],
    );
    assert.deepEqual(
      result.errors.map((e) => [e.path, e.name]),
      [[join(root, "telegram", "access", "SKILL.md"), "chat/access"]],
    );
  });

  it("follows folder links inside the root once and reports links leading out of it", async () => {
    const base = await tempDir("links");
    const root = join(base, "root");
    await writeFiles(base, {
      "outside/evil/SKILL.md": skillMd("local/evil", "d"),
      "root/real/inner/SKILL.md": skillMd("local/inner", "d"),
    });
    await symlink(join(base, "outside"), join(root, "escape"));
    await symlink(join(root, "real"), join(root, "alias"));
    await symlink(root, join(root, "real", "loop"));
    const result = await scanSkillRoots([{ path: root }], options);
    assert.deepEqual(
      result.skills.map((s) => s.name),
      ["local/inner"],
    );
    assert.deepEqual(result.errors, [
      {
        path: join(root, "escape"),
        field: "path",
        line: 0,
        name: undefined,
        message: `${join(root, "escape")} is a symlink that leads outside the skill root ${root}; it was not followed. Move or copy what it points at into the root.`,
      },
    ]);
    // Where an outside link points is not the client's business (ListSkillErrors is served).
    assert.ok(!result.errors[0]?.message.includes(join(base, "outside")));
  });

  it("stops at the depth limit and says how many folders it skipped", async () => {
    const root = await tempDir("deep");
    await writeFiles(root, {
      "1/SKILL.md": skillMd("local/shallow", "d"),
      "1/2/3/SKILL.md": skillMd("local/deep", "d"),
    });
    const result = await scanSkillRoots([{ path: root }], { ...options, maxDepth: 2 });
    assert.deepEqual(
      result.skills.map((s) => s.name),
      ["local/shallow"],
    );
    assert.deepEqual(
      result.errors.map((e) => [e.path, e.field, e.message]),
      [
        [
          root,
          "root",
          `1 folder(s) deeper than 2 levels below skill root ${root} were not searched (first: ${join(root, "1", "2", "3")}); move skills closer to the root.`,
        ],
      ],
    );
  });

  it("stops at the folder limit and says so", async () => {
    const root = await tempDir("many");
    await writeFiles(root, {
      "a/SKILL.md": skillMd("local/a", "d"),
      "b/SKILL.md": skillMd("local/b", "d"),
      "c/SKILL.md": skillMd("local/c", "d"),
    });
    const result = await scanSkillRoots([{ path: root }], { ...options, maxFolders: 3 });
    assert.deepEqual(
      result.skills.map((s) => s.name),
      ["local/a", "local/b"],
    );
    assert.deepEqual(
      result.errors.map((e) => e.message),
      [
        `skill root ${root} has more than 3 folders; the scan stopped there and later skills are not served: point the root at a narrower folder.`,
      ],
    );
  });

  it("reports a missing root, a root that is a file and a root without any SKILL.md", async () => {
    const base = await tempDir("roots");
    await writeFile(join(base, "file"), "x");
    await mkdir(join(base, "empty", "scripts"), { recursive: true });
    const result = await scanSkillRoots(
      [{ path: join(base, "missing") }, { path: join(base, "file") }, { path: join(base, "empty") }],
      options,
    );
    assert.deepEqual(
      result.errors.map((e) => [e.field, e.message]),
      [
        [
          "root",
          `skill root folder ${join(base, "missing")} not found: check the path (the skills setting of the config, or the DIR given), or create the folder.`,
        ],
        [
          "root",
          `skill root ${join(base, "file")} is not a directory: point the skills path at a folder of skill folders (or at one skill folder).`,
        ],
        [
          "root",
          `no SKILL.md found under skill root folder ${join(base, "empty")}: a skill is a folder holding a SKILL.md file (with name and description).`,
        ],
      ],
    );
  });

  it("reports a skill.md with the wrong case", async () => {
    const root = await tempDir("case");
    await writeFiles(root, { "x/skill.md": skillMd("local/x", "d") });
    assert.deepEqual(
      (await scanSkillRoots([{ path: root }], options)).errors.map((e) => e.message),
      [`found skill.md in ${join(root, "x")}, but the file must be named SKILL.md exactly: rename it.`],
    );
  });

  it("refuses an invalid declared namespace", async () => {
    const root = await tempDir("badns");
    assert.deepEqual(
      (await scanSkillRoots([{ path: root, namespace: "bad ns" }], options)).errors.map((e) => [e.field, e.message]),
      [
        [
          "namespace",
          `skill root ${root} declares namespace "bad ns", which is not valid: use letters, digits, "_" and "-" only.`,
        ],
      ],
    );
  });

  it("reports each failed skill with its path, field and line and keeps the rest", async () => {
    const root = await tempDir("mixed");
    await writeFiles(root, {
      "good/SKILL.md": skillMd("local/good", "d"),
      "bad/SKILL.md": "---\nname: local/bad\n---\n",
    });
    const result = await scanSkillRoots([{ path: root }], options);
    assert.deepEqual(
      result.skills.map((s) => s.name),
      ["local/good"],
    );
    assert.deepEqual(
      result.errors.map((e) => [e.path, e.field, e.line, e.name]),
      [[join(root, "bad", "SKILL.md"), "description", 1, "local/bad"]],
    );
  });
});
