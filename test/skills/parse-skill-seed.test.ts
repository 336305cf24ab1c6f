import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSkill } from "../../src/skills/parse/parse-skill.js";
import { errorsOf } from "./skill-fixtures.js";

// Seed 001, "AgentSkillSpec — SKILL.md Parsing", "Namespaced Naming", "Stable Step Ordering",
// "Structured Steps" and the parse scenarios of "Edge case coverage", one test per scenario.

describe("seed 001: parsing SKILL.md", () => {
  it("parses a minimal SKILL.md with only the required fields", () => {
    const { skill, problems } = parseSkill(
      "---\nname: local/deploy-staging\ndescription: Deploy the current branch to the staging environment.\n---\nFollow these steps to deploy.\n",
    );
    assert.deepEqual(errorsOf(problems), []);
    assert.equal(skill?.name, "local/deploy-staging");
    assert.equal(skill?.namespace, "local");
    assert.equal(skill?.shortName, "deploy-staging");
    assert.equal(skill?.description, "Deploy the current branch to the staging environment.");
    assert.equal(skill?.body, "Follow these steps to deploy.\n");
  });

  it("parses every optional field", () => {
    const { skill } = parseSkill(
      [
        "---",
        "name: local/code-review",
        "description: Run a thorough code review checklist.",
        "version: 1.2.3",
        "compatibility:",
        '  min_agent_version: "3.0.0"',
        "metadata:",
        "  author: aditya",
        "  tags: [review, quality]",
        "allowed-tools:",
        "  - local/read-file",
        "  - local/search-files",
        "---",
        "## Code Review Steps",
        "1. Check style",
        "2. Verify tests",
        "",
      ].join("\n"),
    );
    assert.equal(skill?.name, "local/code-review");
    assert.equal(skill?.version, "1.2.3");
    assert.deepEqual(skill?.allowedTools, ["local/read-file", "local/search-files"]);
    assert.deepEqual(skill?.metadata, { author: "aditya", tags: ["review", "quality"] });
    assert.deepEqual(skill?.compatibility, { min_agent_version: "3.0.0" });
  });

  it("preserves the body exactly", () => {
    const body =
      "# Multi-line Instructions\n\nStep 1: Do something important.\nStep 2: Do another thing.\n\n```python\ncode_example()\n```\n";
    const { skill } = parseSkill(
      `---\nname: local/test-skill\ndescription: Test skill for body parsing.\n---\n${body}`,
    );
    assert.equal(skill?.body, body);
  });

  it("refuses a SKILL.md without name, naming the field", () => {
    const { skill, problems } = parseSkill("---\ndescription: A skill without a name.\n---\nSome body text.\n");
    assert.equal(skill, undefined);
    assert.deepEqual(errorsOf(problems), [
      [
        "name",
        "name is missing: add `name: namespace/short-name` (for example `name: local/deploy-staging`) to the frontmatter.",
      ],
    ]);
  });

  it("refuses a SKILL.md without description, naming the field", () => {
    const { skill, problems } = parseSkill("---\nname: local/no-desc\n---\nSome body text.\n");
    assert.equal(skill, undefined);
    assert.deepEqual(errorsOf(problems), [
      [
        "description",
        "description is missing: add `description: ...` saying in one or two sentences what the skill does and when to use it.",
      ],
    ]);
  });

  it("refuses a name without namespace with a message about the namespace", () => {
    const { problems, name } = parseSkill(
      "---\nname: invalid-name-no-slash\ndescription: A skill with a bad name.\n---\nBody text.\n",
    );
    assert.equal(name, undefined);
    assert.deepEqual(errorsOf(problems), [
      [
        "namespace",
        'name "invalid-name-no-slash" has no namespace: write it as namespace/short-name (for example "local/invalid-name-no-slash"), or serve its folder from a skill root that declares a namespace.',
      ],
    ]);
  });

  it("refuses a file without frontmatter, naming the frontmatter", () => {
    const { problems } = parseSkill("Just plain text without frontmatter.\nNo YAML delimiter here.\n");
    assert.deepEqual(errorsOf(problems), [
      [
        "frontmatter",
        "SKILL.md has no YAML frontmatter: line 1 must be '---', found \"Just plain text without frontmatter.\". Start the file with '---', then `name` and `description` lines, then '---'.",
      ],
    ]);
    assert.equal(problems[0]?.line, 1);
  });

  it("refuses an empty SKILL.md, naming the frontmatter", () => {
    assert.deepEqual(errorsOf(parseSkill("").problems), [
      [
        "frontmatter",
        "SKILL.md is empty: it must start with a '---' line, then the YAML frontmatter with at least `name` and `description`, then a closing '---' line and the instructions.",
      ],
    ]);
  });

  it("refuses an unclosed frontmatter", () => {
    const { problems } = parseSkill(
      "---\nname: local/unclosed-skill\ndescription: This frontmatter is never closed.\n",
    );
    assert.deepEqual(errorsOf(problems), [
      [
        "frontmatter",
        "the frontmatter opened by '---' on line 1 is never closed: add a line that is exactly '---' after the last frontmatter field (the file has 3 lines).",
      ],
    ]);
  });

  it("refuses an empty frontmatter block", () => {
    assert.deepEqual(errorsOf(parseSkill("---\n---\nBody.\n").problems), [
      [
        "frontmatter",
        "the frontmatter block is empty: put at least `name: namespace/short-name` and `description: ...` between the two '---' lines.",
      ],
    ]);
  });

  it("refuses malformed YAML, naming YAML and the line", () => {
    const { skill, problems } = parseSkill("---\nname: local/broken\ndescription: [unclosed\n---\nBody.\n");
    assert.equal(skill, undefined);
    assert.deepEqual(problems, [
      {
        severity: "error",
        field: "YAML",
        message:
          "YAML error on line 4: Flow sequence in block collection must be sufficiently indented and end with a ]. Check the indentation and quoting of this line.",
        line: 4,
      },
    ]);
  });

  it("refuses a YAML list as frontmatter, saying it must be a mapping", () => {
    assert.deepEqual(errorsOf(parseSkill("---\n- name: local/x\n- description: y\n---\nBody.\n").problems), [
      [
        "frontmatter",
        "the frontmatter must be a YAML mapping of `key: value` lines (name, description, ...), found a list.",
      ],
    ]);
  });

  it("accepts a non-mapping compatibility and keeps it as text", () => {
    const { skill, problems } = parseSkill(
      '---\nname: local/bad-compat\ndescription: Skill with non-dict compatibility field.\ncompatibility: "just a string"\n---\nBody text.\n',
    );
    assert.equal(skill?.name, "local/bad-compat");
    assert.equal(skill?.compatibility, undefined);
    assert.equal(skill?.compatibilityText, "just a string");
    assert.deepEqual(
      problems.filter((p) => p.field === "compatibility"),
      [],
    );
  });

  it("accepts a non-mapping metadata, keeps it as text and warns", () => {
    const { skill, problems } = parseSkill(
      '---\nname: local/bad-meta\ndescription: Skill with non-dict metadata field.\nmetadata: "just a string"\n---\nBody text.\n',
    );
    assert.equal(skill?.name, "local/bad-meta");
    assert.equal(skill?.metadata, undefined);
    assert.equal(skill?.metadataText, "just a string");
    assert.deepEqual(
      problems.filter((p) => p.field === "metadata").map((p) => [p.severity, p.message, p.line]),
      [["warning", "metadata should be a mapping of `key: value` entries; it was kept as text.", 4]],
    );
  });
});

describe("seed 001: namespaced naming", () => {
  for (const name of ["local/my-skill", "devops/deploy-pipeline", "local/my_complex-skill_v2"]) {
    it(`accepts ${name}`, () => {
      const { skill, problems } = parseSkill(`---\nname: ${name}\ndescription: Valid.\n---\nBody.\n`);
      assert.deepEqual(errorsOf(problems), []);
      assert.equal(skill?.name, name);
    });
  }

  it("refuses special characters with a message about the namespaced form", () => {
    assert.deepEqual(
      errorsOf(parseSkill("---\nname: local/bad name!\ndescription: Invalid name.\n---\nBody.\n").problems),
      [
        [
          "name",
          'name "local/bad name!" is not a valid namespaced name: write it as namespace/short-name, each part made of letters, digits, "_" and "-" only (for example "local/bad-name").',
        ],
      ],
    );
  });
});

describe("seed 001: steps", () => {
  it("keeps body steps in their order", () => {
    const { skill } = parseSkill(
      "---\nname: local/ordered-skill\ndescription: Ordered steps skill.\n---\nStep A: First action.\nStep B: Second action.\nStep C: Third action.\n",
    );
    const body = skill?.body ?? "";
    const positions = ["Step A", "Step B", "Step C"].map((s) => body.indexOf(s));
    assert.ok(positions.every((p) => p >= 0));
    assert.deepEqual(
      [...positions].sort((a, b) => a - b),
      positions,
    );
  });

  it("parses a frontmatter steps list into 1-based SkillSteps", () => {
    const { skill } = parseSkill(
      "---\nname: local/step-skill\ndescription: Skill with structured steps.\nsteps:\n  - Run tests to verify everything passes\n  - Push branch to remote repository\n  - Deploy to staging environment\n---\nDetailed instructions go here.\n",
    );
    assert.deepEqual(skill?.steps, [
      { index: 1, content: "Run tests to verify everything passes" },
      { index: 2, content: "Push branch to remote repository" },
      { index: 3, content: "Deploy to staging environment" },
    ]);
  });

  it("numbers Alpha, Beta, Gamma 1, 2, 3", () => {
    const { skill } = parseSkill(
      "---\nname: local/ordered-steps-skill\ndescription: Ordered structured steps.\nsteps:\n  - Alpha step\n  - Beta step\n  - Gamma step\n---\nBody text.\n",
    );
    assert.deepEqual(
      skill?.steps.map((s) => [s.index, s.content]),
      [
        [1, "Alpha step"],
        [2, "Beta step"],
        [3, "Gamma step"],
      ],
    );
  });

  it("has no steps when the field is absent", () => {
    assert.deepEqual(
      parseSkill("---\nname: local/no-steps-skill\ndescription: Skill without steps field.\n---\nBody text.\n").skill
        ?.steps,
      [],
    );
  });

  it("refuses steps that are not a list", () => {
    assert.deepEqual(
      errorsOf(
        parseSkill(
          '---\nname: local/bad-steps-skill\ndescription: Skill with invalid steps field type.\nsteps: "just a string instead of a list"\n---\nBody text.\n',
        ).problems,
      ),
      [
        [
          "steps",
          'steps must be a YAML list of step texts (one "- ..." line per step), found the text "just a string instead of a list".',
        ],
      ],
    );
  });

  it("refuses an empty step entry, naming the entry and its line", () => {
    const { problems } = parseSkill(
      "---\nname: local/empty-step-skill\ndescription: Skill with an empty step in the list.\nsteps:\n  - First valid step\n  -\n---\nBody text.\n",
    );
    assert.deepEqual(errorsOf(problems), [
      ["steps", 'steps entry 2 (line 6) is empty: write the step\'s text after the "-" or remove the line.'],
    ]);
    assert.equal(problems.find((p) => p.severity === "error")?.line, 6);
  });
});
