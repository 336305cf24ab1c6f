import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseYamlSafely } from "../../src/skills/parse/parse-yaml-safely.js";
import { parseSkill } from "../../src/skills/parse/parse-skill.js";
import { errorsOf } from "./skill-fixtures.js";

/** billionLaughs builds a YAML whose aliases expand to 10^depth entries. */
function billionLaughs(depth: number): string {
  let yaml = "name: a/b\ndescription: lol\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (let i = 1; i <= depth; i++) {
    yaml += `l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(", ")}]\n`;
  }
  return yaml;
}

const aliasMessage =
  "YAML uses too many alias expansions (*name references), as a resource-exhaustion attack would: write the values out instead of referencing anchors.";

describe("parseYamlSafely", () => {
  it("refuses a billion-laughs document instead of expanding it", () => {
    // 10^9 expansions would take minutes and gigabytes; the alias cap stops it before the first.
    const result = parseYamlSafely(billionLaughs(9), { firstLine: 2 });
    assert.equal(result.value, undefined);
    assert.deepEqual(result.problems, [{ severity: "error", field: "YAML", message: aliasMessage, line: 2 }]);
  });

  it("reports a billion-laughs SKILL.md as a YAML error of the skill", () => {
    assert.deepEqual(errorsOf(parseSkill(`---\n${billionLaughs(9)}---\nbody\n`).problems), [["YAML", aliasMessage]]);
  });

  it("still allows a few aliases", () => {
    const result = parseYamlSafely("a: &x [1, 2]\nb: *x\n", { firstLine: 2 });
    assert.deepEqual(result.value, { a: [1, 2], b: [1, 2] });
  });

  it("refuses YAML over the size cap without parsing it", () => {
    const result = parseYamlSafely(`description: ${"x".repeat(2000)}\n`, { firstLine: 2, maxBytes: 1000 });
    assert.deepEqual(
      result.problems.map((p) => [p.field, p.message]),
      [
        [
          "YAML",
          "YAML frontmatter is 2014 bytes, over the limit of 1000: keep the frontmatter to the fields and move long text into the body or references/.",
        ],
      ],
    );
  });

  it("refuses custom tags instead of reading them as strings", () => {
    const result = parseYamlSafely("run: !!js/function 'function () { return 1 }'\n", { firstLine: 2 });
    assert.equal(result.value, undefined);
    assert.deepEqual(
      result.problems.map((p) => [p.severity, p.line]),
      [["error", 2]],
    );
    assert.match(
      result.problems[0]?.message ?? "",
      /^YAML error on line 2: Unresolved tag: .*Tags are not allowed in SKILL\.md frontmatter; remove the tag\.$/,
    );
  });

  it("refuses YAML 1.1 tags such as !!binary", () => {
    assert.equal(parseYamlSafely("x: !!binary aGVsbG8=\n", { firstLine: 2 }).problems[0]?.severity, "error");
  });

  it("does not merge << keys", () => {
    const result = parseYamlSafely("base: &b {x: 1}\nderived:\n  <<: *b\n", { firstLine: 2 });
    assert.deepEqual(result.value, { base: { x: 1 }, derived: { "<<": { x: 1 } } });
  });

  it("reports absurd nesting as a parse problem instead of overflowing the stack", () => {
    const result = parseYamlSafely(`a: ${"[".repeat(50_000)}${"]".repeat(50_000)}\n`, { firstLine: 2 });
    assert.equal(result.value, undefined);
    assert.ok(result.problems.some((p) => p.severity === "error" && p.field === "YAML"));
  });

  it("reports a duplicate key with its SKILL.md line", () => {
    const result = parseYamlSafely("name: a/b\nname: a/c\n", { firstLine: 2 });
    assert.deepEqual(result.problems, [
      {
        severity: "error",
        field: "YAML",
        message:
          "YAML error on line 3: Map keys must be unique. Each key may appear once; remove or merge the duplicate.",
        line: 3,
      },
    ]);
  });

  it("checks the keys of a large mapping in one pass, and still finds a duplicate among them", {
    timeout: 60_000,
  }, () => {
    // 20,000 keys (~230 KB, under the 256 KiB cap): the YAML library's own check compared every
    // key with every other, ~6 s a parse; the test's timeout is only a hang guard.
    const keys = Array.from({ length: 20_000 }, (_, k) => `  k${k}: 1`);
    const whole = parseYamlSafely(`metadata:\n${keys.join("\n")}\n`, { firstLine: 2 });
    assert.deepEqual(whole.problems, []);
    assert.equal(Object.keys((whole.value as { metadata: object }).metadata).length, 20_000);
    const repeated = parseYamlSafely(`metadata:\n${[...keys, "  k17: 2"].join("\n")}\n`, { firstLine: 2 });
    assert.deepEqual(repeated.problems, [
      {
        severity: "error",
        field: "YAML",
        message:
          "YAML error on line 20003: Map keys must be unique. Each key may appear once; remove or merge the duplicate.",
        line: 20_003,
      },
    ]);
    assert.deepEqual(
      parseYamlSafely("1: a\n'1': b\n", { firstLine: 2 }).problems,
      [],
      "an integer key and a string key are two keys",
    );
  });

  it("keeps YAML 1.2 core scalars: no timestamps, yes stays a string", () => {
    assert.deepEqual(parseYamlSafely("d: 2024-01-01\nb: yes\nn: 0x10\n", { firstLine: 2 }).value, {
      d: "2024-01-01",
      b: "yes",
      n: 16,
    });
  });
});
