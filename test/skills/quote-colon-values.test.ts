import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { quoteColonValues } from "../../src/skills/parse/quote-colon-values.js";
import { parseSkill } from "../../src/skills/parse/parse-skill.js";
import { warningsOf } from "./skill-fixtures.js";

describe("quoteColonValues", () => {
  it("quotes a plain value containing ': '", () => {
    const result = quoteColonValues("name: x\ndescription: Use when: the user asks\n");
    assert.equal(result.yaml, 'name: x\ndescription: "Use when: the user asks"\n');
    assert.deepEqual(result.quoted, [
      { key: "description", yamlLine: 1, fixed: 'description: "Use when: the user asks"' },
    ]);
  });

  it("escapes quotes and backslashes inside the value", () => {
    assert.equal(quoteColonValues('d: say "hi": now \\o/\n').yaml, 'd: "say \\"hi\\": now \\\\o/"\n');
  });

  it("keeps CRLF line endings", () => {
    assert.equal(quoteColonValues("d: a: b\r\nx: y\r\n").yaml, 'd: "a: b"\r\nx: y\r\n');
  });

  it("leaves quoted, block, flow and commented values alone", () => {
    const yaml = "a: 'x: y'\nb: \"x: y\"\nc: [x: y]\nd: |\n  x: y\ne: plain # note: fine\n";
    assert.deepEqual(quoteColonValues(yaml), { yaml, quoted: [] });
  });

  it("leaves lines inside a block scalar or a multi-line plain value alone", () => {
    const yaml = "description: >\n  Use when: asked\nother: first line\n  second: line\n";
    assert.deepEqual(quoteColonValues(yaml).quoted, []);
  });

  it("quotes nested keys too", () => {
    assert.equal(quoteColonValues("metadata:\n  short: Fix: CI\n").yaml, 'metadata:\n  short: "Fix: CI"\n');
  });
});

describe("parseSkill retries unquoted ': ' once", () => {
  it("loads the skill with a warning that shows the fix", () => {
    const { skill, problems } = parseSkill(
      "---\nname: local/x\ndescription: Use this skill when: the user asks about PDFs\n---\nbody\n",
    );
    assert.equal(skill?.description, "Use this skill when: the user asks about PDFs");
    assert.deepEqual(warningsOf(problems), [
      [
        "YAML",
        'YAML on line 3: the value of "description" contains ": " without quotes, which YAML refuses; it was read as if quoted. Write it quoted: description: "Use this skill when: the user asks about PDFs"',
      ],
    ]);
  });

  it("reports the original YAML error when quoting does not help", () => {
    const { skill, problems } = parseSkill("---\nname: local/x\ndescription: a: b\nbad: [\n---\nbody\n");
    assert.equal(skill, undefined);
    assert.ok(problems.every((p) => p.field === "YAML" && p.severity === "error"));
    assert.match(
      problems[0]?.message ?? "",
      /^YAML error on line 3: Nested mappings are not allowed in compact mappings\. Put values that contain ': ' in quotes\.$/,
    );
  });
});
