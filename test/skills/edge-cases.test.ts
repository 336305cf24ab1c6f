import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadSkillFolder, type SkillFolderResult } from "../../src/skills/load/load-skill-folder.js";
import { corpusDir } from "./skill-fixtures.js";

// Each fixture of test/fixtures/skills/edge-cases (see its README), loaded in place from a
// skill root that declares the namespace "edge", as a public collection would be served.

const edgeRoot = join(corpusDir, "edge-cases");
const load = (dir: string): Promise<SkillFolderResult> =>
  loadSkillFolder(join(edgeRoot, dir), { namespace: "edge", maxSkillFileBytes: 1024 * 1024, root: edgeRoot });

async function loaded(dir: string) {
  const result = await load(dir);
  assert.deepEqual(result.errors, []);
  assert.ok(result.skill && result.parsed);
  return { skill: result.skill, parsed: result.parsed };
}

async function refused(dir: string) {
  const result = await load(dir);
  assert.equal(result.skill, undefined);
  return result.errors.map((e) => ({
    path: e.path.slice(edgeRoot.length + 1),
    field: e.field,
    line: e.line,
    message: e.message,
  }));
}

describe("corpus edge cases", () => {
  it("bom-prefixed: a BOM before --- loads", async () => {
    const { skill, parsed } = await loaded("bom-prefixed");
    assert.equal(skill.name, "edge/bom-prefixed");
    assert.equal(parsed.body, "# Body\n");
    assert.deepEqual(skill.warnings, []);
  });

  it("crlf-only: CRLF everywhere loads and the body keeps its CRLF", async () => {
    const { skill, parsed } = await loaded("crlf-only");
    assert.equal(skill.description, "All line endings are CRLF.");
    assert.equal(parsed.body, "\r\n# Body\r\n1. step one\r\n");
  });

  it("triple-dash-in-value: --- inside a quoted value does not cut the frontmatter", async () => {
    assert.equal(
      (await loaded("triple-dash-in-value")).skill.description,
      "Splits on --- break naive parsers: a --- b",
    );
  });

  it("unclosed-frontmatter: refused, saying to close it", async () => {
    assert.deepEqual(await refused("unclosed-frontmatter"), [
      {
        path: "unclosed-frontmatter/SKILL.md",
        field: "frontmatter",
        line: 1,
        message:
          "the frontmatter opened by '---' on line 1 is never closed: add a line that is exactly '---' after the last frontmatter field (the file has 4 lines).",
      },
    ]);
  });

  it("empty-description: refused, naming the description and its line", async () => {
    assert.deepEqual(await refused("empty-description"), [
      {
        path: "empty-description/SKILL.md",
        field: "description",
        line: 3,
        message:
          "description is empty: say in one or two sentences what the skill does and when to use it; agents pick skills by it.",
      },
    ]);
  });

  it("Upper-Case-Name: loads under its own name, with the specification's lowercase advice", async () => {
    const { skill } = await loaded("Upper-Case-Name");
    assert.equal(skill.name, "edge/Upper-Case-Name");
    assert.deepEqual(
      skill.warnings.map((w) => w.message),
      ['name "Upper-Case-Name" must be lowercase (Agent Skills specification): rename it to "upper-case-name".'],
    );
  });

  it("навык: loads under its own name, as the reference validator accepts lowercase letters of any script", async () => {
    const { skill } = await loaded("навык");
    assert.equal(skill.name, "edge/навык");
    assert.deepEqual(skill.warnings, []);
  });

  it("colon-in-description: loads after quoting the value once, with a warning", async () => {
    const { skill } = await loaded("colon-in-description");
    assert.equal(skill.description, "Use this skill when: the user asks about PDFs");
    assert.deepEqual(
      skill.warnings.map((w) => [w.field, w.line]),
      [["YAML", 3]],
    );
  });

  it("yaml-document-end: a --- rule in the body stays in the body", async () => {
    assert.equal((await loaded("yaml-document-end")).parsed.body, "# Title\n\n---\n\nText after a horizontal rule.\n");
  });

  it("flow-list-allowed-tools: a flow list and non-string metadata survive", async () => {
    const { skill, parsed } = await loaded("flow-list-allowed-tools");
    assert.deepEqual(skill.allowedTools, ["Read", "Grep", "Bash(git:*)"]);
    assert.deepEqual(parsed.metadata, { version: 1, tags: ["a", "b"] });
  });

  it("mismatch-dir: loads under its declared name, warning that it differs from the folder", async () => {
    const { skill } = await loaded("mismatch-dir");
    assert.equal(skill.name, "edge/some-other-name");
    assert.deepEqual(
      skill.warnings.map((w) => w.message),
      [
        'name "some-other-name" differs from its folder "mismatch-dir"; the Agent Skills specification requires them to be equal: rename one of them.',
      ],
    );
  });

  it("no-frontmatter: refused, quoting the first line", async () => {
    assert.deepEqual(await refused("no-frontmatter"), [
      {
        path: "no-frontmatter/SKILL.md",
        field: "frontmatter",
        line: 1,
        message:
          "SKILL.md has no YAML frontmatter: line 1 must be '---', found \"# Just markdown\". Start the file with '---', then `name` and `description` lines, then '---'.",
      },
    ]);
  });
});
