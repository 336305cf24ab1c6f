import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSkill } from "../../src/skills/parse/parse-skill.js";
import { errorsOf, skillMd, warningsOf } from "./skill-fixtures.js";

describe("allowed-tools", () => {
  const tools = (line: string) => parseSkill(skillMd("local/t", "d", `${line}\n`)).skill?.allowedTools;

  it("takes a YAML list", () =>
    assert.deepEqual(tools("allowed-tools:\n  - Read\n  - Bash(git:*)"), ["Read", "Bash(git:*)"]));
  it("takes a flow list", () =>
    assert.deepEqual(tools('allowed-tools: [Read, Grep, "Bash(git:*)"]'), ["Read", "Grep", "Bash(git:*)"]));
  it("splits a comma-separated string", () =>
    assert.deepEqual(tools("allowed-tools: Read, Write, Edit, Glob, Grep"), ["Read", "Write", "Edit", "Glob", "Grep"]));
  it("splits a space-separated string", () =>
    assert.deepEqual(tools("allowed-tools: Read Write Edit Bash"), ["Read", "Write", "Edit", "Bash"]));
  it("does not split inside parentheses", () =>
    assert.deepEqual(tools('allowed-tools: "Bash(git log:*) Read, Bash(npm run test:*)"'), [
      "Bash(git log:*) Read",
      "Bash(npm run test:*)",
    ]));
  it("keeps names with spaces in a list", () =>
    assert.deepEqual(tools("allowed-tools: ['Azure MCP/documentation']"), ["Azure MCP/documentation"]));
  it("is empty when absent", () => assert.deepEqual(tools(""), []));

  it("warns about and ignores a mapping", () => {
    const { skill, problems } = parseSkill(skillMd("local/t", "d", "allowed-tools:\n  read: yes\n"));
    assert.deepEqual(skill?.allowedTools, []);
    assert.deepEqual(warningsOf(problems), [
      [
        "allowed-tools",
        "allowed-tools must be a list of tool names or a comma- or space-separated string; it was ignored.",
      ],
    ]);
  });

  it("warns about and skips a list entry that is not a name", () => {
    const { skill, problems } = parseSkill(skillMd("local/t", "d", "allowed-tools:\n  - Read\n  - {a: b}\n"));
    assert.deepEqual(skill?.allowedTools, ["Read"]);
    assert.deepEqual(warningsOf(problems), [
      [
        "allowed-tools",
        'allowed-tools entry 2 is not a tool name and was ignored: list tool names as text (quote an entry that contains ": ").',
      ],
    ]);
  });
});

describe("metadata, compatibility, version and license", () => {
  it("keeps nested maps, lists, numbers and booleans in metadata", () => {
    const { skill } = parseSkill(
      skillMd(
        "local/m",
        "d",
        "metadata:\n  version: 1.0\n  tags: [a, b]\n  nested:\n    deep: [1, {x: true}]\n  none: ~\n",
      ),
    );
    assert.deepEqual(skill?.metadata, { version: 1, tags: ["a", "b"], nested: { deep: [1, { x: true }] }, none: null });
  });

  it("turns what a Struct cannot hold into text", () => {
    assert.deepEqual(parseSkill(skillMd("local/m", "d", "metadata:\n  big: .inf\n  1: one\n")).skill?.metadata, {
      big: "Infinity",
      "1": "one",
    });
  });

  it("keeps a list metadata as JSON text with a warning", () => {
    const { skill, problems } = parseSkill(skillMd("local/m", "d", "metadata: [a, 1]\n"));
    assert.equal(skill?.metadataText, '["a",1]');
    assert.deepEqual(warningsOf(problems), [
      ["metadata", "metadata should be a mapping of `key: value` entries; it was kept as text."],
    ]);
  });

  it("keeps a compatibility map as structured data", () => {
    assert.deepEqual(
      parseSkill(skillMd("local/c", "d", "compatibility:\n  python: '>=3.8'\n  os: [linux, macos]\n")).skill
        ?.compatibility,
      {
        python: ">=3.8",
        os: ["linux", "macos"],
      },
    );
  });

  it("reads version and license as written", () => {
    const { skill } = parseSkill(skillMd("local/v", "d", "version: 1.10\nlicense: MIT\n"));
    assert.equal(skill?.version, "1.10");
    assert.equal(skill?.license, "MIT");
  });

  it("warns about a version that is a mapping", () => {
    const { skill, problems } = parseSkill(skillMd("local/v", "d", "version:\n  major: 1\n"));
    assert.equal(skill?.version, "");
    assert.deepEqual(warningsOf(problems), [
      ["version", "version should be text, not a list or mapping; it was ignored."],
    ]);
  });
});

describe("description", () => {
  it("joins a folded multi-line description and trims it", () => {
    assert.equal(parseSkill("---\nname: local/d\ndescription: >\n  one\n  two\n---\n").skill?.description, "one two");
  });

  it("refuses an empty description", () => {
    assert.deepEqual(errorsOf(parseSkill(skillMd("local/d", '""')).problems), [
      [
        "description",
        "description is empty: say in one or two sentences what the skill does and when to use it; agents pick skills by it.",
      ],
    ]);
  });

  it("refuses a description that is a list", () => {
    assert.deepEqual(errorsOf(parseSkill("---\nname: local/d\ndescription:\n  - a\n---\n").problems), [
      ["description", "description must be text, not a list or mapping (quote it if it contains ': ')."],
    ]);
  });

  it("warns about a description over 1024 characters and loads the skill", () => {
    const { skill, problems } = parseSkill(skillMd("local/d", "x".repeat(1025)));
    assert.equal(skill?.description.length, 1025);
    assert.deepEqual(warningsOf(problems), [
      [
        "description",
        "description has 1025 characters, over the Agent Skills specification's limit of 1024: move detail into the body.",
      ],
    ]);
  });
});

describe("names and declared namespaces", () => {
  const parse = (name: string, namespace?: string, folderName?: string) =>
    parseSkill(skillMd(name, "d"), { namespace, folderName });

  it("qualifies a bare name with the declared namespace", () => {
    const { skill, problems } = parse("pdf", "anthropic", "pdf");
    assert.equal(skill?.name, "anthropic/pdf");
    assert.deepEqual(problems, []);
  });

  it("keeps an already qualified name under a declared namespace", () => {
    assert.equal(parse("devops/deploy", "anthropic")?.skill?.name, "devops/deploy");
  });

  it("serves a name with spaces and capitals as a slug, with a warning naming both", () => {
    const { skill, problems } = parse("Ahrefs Automation", "composio");
    assert.equal(skill?.name, "composio/Ahrefs-Automation");
    assert.deepEqual(warningsOf(problems), [
      [
        "name",
        'name "Ahrefs Automation" has characters other than letters, digits, "_" and "-"; it is served as "composio/Ahrefs-Automation". Rename it to "ahrefs-automation" to follow the Agent Skills specification.',
      ],
      [
        "name",
        'name "Ahrefs-Automation" must be lowercase (Agent Skills specification): rename it to "ahrefs-automation".',
      ],
    ]);
  });

  it("serves names in any script's lowercase letters under a declared namespace, as the reference validator does", () => {
    for (const name of ["навык", "мой-навык", "技能"]) {
      const { skill, problems } = parse(name, "i18n", name);
      assert.equal(skill?.name, `i18n/${name}`);
      assert.deepEqual(problems, []);
    }
  });

  it("refuses a name with no letter or digit at all", () => {
    assert.deepEqual(errorsOf(parse("'!!!'", "i18n").problems), [
      [
        "name",
        'name "!!!" has no letter or digit to make a short name from; skill names use letters, digits and "-": rename it.',
      ],
    ]);
  });

  it("normalises a name to NFC and compares it with its folder in NFKC, as skills-ref does", () => {
    const decomposed = "cafe\u0301";
    const { skill, problems } = parse(decomposed, "i18n", "caf\u00e9");
    assert.equal(skill?.name, "i18n/caf\u00e9");
    assert.deepEqual(problems, []);
    assert.deepEqual(parse("caf\u00e9", "i18n", decomposed).problems, []);
  });

  it("still refuses a qualified name with bad characters under a declared namespace", () => {
    assert.equal(errorsOf(parse("local/bad name!", "anthropic").problems)[0]?.[0], "name");
  });

  it("warns when the name differs from its folder", () => {
    assert.deepEqual(warningsOf(parse("local/some-other-name", undefined, "mismatch-dir").problems), [
      [
        "name",
        'name "some-other-name" differs from its folder "mismatch-dir"; the Agent Skills specification requires them to be equal: rename one of them.',
      ],
    ]);
  });

  it("warns about leading hyphens and over-long names", () => {
    assert.deepEqual(
      warningsOf(parse(`-${"a".repeat(64)}`, "ns").problems).map(([, m]) => m),
      [
        `name "-${"a".repeat(64)}" is 65 characters long, over the Agent Skills specification's limit of 64.`,
        `name "-${"a".repeat(64)}" must not start or end with a hyphen (Agent Skills specification).`,
      ],
    );
  });

  it("refuses a name that is a list", () => {
    assert.deepEqual(errorsOf(parseSkill("---\nname: [a, b]\ndescription: d\n---\n").problems), [
      ["name", "name must be text such as `local/deploy-staging`, not a list or mapping."],
    ]);
  });
});

describe("unknown keys and steps details", () => {
  it("warns about each unknown top-level key with its line", () => {
    const { skill, problems } = parseSkill(skillMd("local/u", "d", "tags: [a]\nuser-invocable: true\n"));
    assert.ok(skill);
    assert.deepEqual(
      problems.map((p) => [p.severity, p.field, p.line]),
      [
        ["warning", "tags", 4],
        ["warning", "user-invocable", 5],
      ],
    );
    assert.equal(
      problems[0]?.message,
      'unknown top-level key "tags": the Agent Skills specification defines name, description, license, compatibility, metadata and allowed-tools (toolhost adds version and steps); move it under metadata.',
    );
  });

  it("explains a step that YAML read as a mapping", () => {
    assert.deepEqual(errorsOf(parseSkill(skillMd("local/s", "d", "steps:\n  - Run: npm test\n")).problems), [
      [
        "steps",
        'steps entry 1 (line 5) is a mapping, not text: a step that contains ": " must be quoted, e.g. - "Run: npm test".',
      ],
    ]);
  });

  it("refuses a number as a step", () => {
    assert.deepEqual(errorsOf(parseSkill(skillMd("local/s", "d", "steps:\n  - 42\n")).problems), [
      ["steps", "steps entry 1 (line 5) is number 42, not text: quote it to make it a step."],
    ]);
  });

  it("refuses an empty steps key", () => {
    assert.deepEqual(errorsOf(parseSkill(skillMd("local/s", "d", "steps:\n")).problems), [
      ["steps", 'steps must be a YAML list of step texts (one "- ..." line per step), found nothing.'],
    ]);
  });

  it("reports every error at once, in file order", () => {
    const { problems } = parseSkill("---\nname: nons\nsteps: x\n---\n");
    assert.deepEqual(
      problems.map((p) => [p.field, p.line]),
      [
        ["description", 1],
        ["namespace", 2],
        ["steps", 3],
      ],
    );
  });
});
