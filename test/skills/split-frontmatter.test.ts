import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  isFrontmatterProblem,
  splitFrontmatter,
  type FrontmatterSplit,
} from "../../src/skills/parse/split-frontmatter.js";
import type { SkillProblem } from "../../src/skills/skill-types.js";

function split(text: string): FrontmatterSplit {
  const result = splitFrontmatter(text);
  assert.ok(!isFrontmatterProblem(result), JSON.stringify(result));
  return result;
}

function problem(text: string): SkillProblem {
  const result = splitFrontmatter(text);
  assert.ok(isFrontmatterProblem(result), "expected a problem");
  return result;
}

describe("splitFrontmatter", () => {
  it("cuts at the first line that is exactly ---, not at --- inside a value", () => {
    const result = split('---\nname: a/b\ndescription: "x --- y"\n---\nbody\n');
    assert.equal(result.yaml, 'name: a/b\ndescription: "x --- y"\n');
    assert.equal(result.body, "body\n");
    assert.equal(result.yamlFirstLine, 2);
    assert.equal(result.closingLine, 4);
  });

  it("keeps a later --- horizontal rule in the body", () => {
    assert.equal(split("---\nname: a/b\n---\n# T\n\n---\n\nafter\n").body, "# T\n\n---\n\nafter\n");
  });

  it("does not take a line that only starts with --- as the delimiter", () => {
    const result = split("---\nname: a/b\n--- not a delimiter\n---\nbody");
    assert.equal(result.yaml, "name: a/b\n--- not a delimiter\n");
    assert.equal(result.body, "body");
  });

  it("strips a UTF-8 BOM and says so", () => {
    const result = split("\uFEFF---\nname: a/b\n---\nbody\n");
    assert.equal(result.bom, true);
    assert.equal(result.yaml, "name: a/b\n");
  });

  it("accepts CRLF delimiters and keeps CRLF in the body", () => {
    const result = split("---\r\nname: a/b\r\n---\r\n\r\n# Body\r\n");
    assert.equal(result.yaml, "name: a/b\r\n");
    assert.equal(result.body, "\r\n# Body\r\n");
  });

  it("gives an empty body when the closing delimiter ends the file", () => {
    assert.equal(split("---\nname: a/b\n---").body, "");
  });

  it("reports an empty file", () => {
    assert.equal(problem("  \n").message.startsWith("SKILL.md is empty:"), true);
  });

  it("reports a missing opening delimiter with the first line", () => {
    const p = problem("# Title\n---\nname: a/b\n---\n");
    assert.equal(p.field, "frontmatter");
    assert.equal(
      p.message,
      "SKILL.md has no YAML frontmatter: line 1 must be '---', found \"# Title\". Start the file with '---', then `name` and `description` lines, then '---'.",
    );
  });

  it("recognises a symlink stored as text", () => {
    const p = problem("../../../engineering-team/a11y-audit/skills/a11y-audit/SKILL.md");
    assert.match(p.message, /looks like a symlink stored as text \(git core\.symlinks=false\)/);
  });

  it("reports an unclosed frontmatter with the line count", () => {
    assert.equal(
      problem("---\nname: a/b\n# Body\n").message,
      "the frontmatter opened by '---' on line 1 is never closed: add a line that is exactly '---' after the last frontmatter field (the file has 3 lines).",
    );
  });

  it("reports an empty frontmatter block", () => {
    assert.equal(problem("---\n\n---\nbody").field, "frontmatter");
  });
});
