import assert from "node:assert/strict";
import { Given, Then, When } from "@cucumber/cucumber";
import type { Skill } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { ProblemSeverity } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import type { ToolhostWorld } from "../support/world.js";
import { recordError, skillScenario } from "./skills-state.steps.js";

// Seed 001's parse scenarios go through SkillCatalog.ValidateSkill on the live server: the
// SKILL.md text is sent as a client would send it, and the answer's skill or problems are checked.

Given("a SKILL.md file with frontmatter:", function (this: ToolhostWorld, text: string) {
  skillScenario(this).text = `${text}\n`;
});

Given("an empty SKILL.md file", function (this: ToolhostWorld) {
  skillScenario(this).text = "";
});

Given("a SKILL.md with an empty frontmatter block", function (this: ToolhostWorld) {
  skillScenario(this).text = "---\n---\nBody text.\n";
});

Given("a SKILL.md with malformed YAML frontmatter", function (this: ToolhostWorld) {
  skillScenario(this).text = "---\nname: local/broken\ndescription: [unclosed, list\n  : bad\n---\nBody text.\n";
});

Given("a SKILL.md with a YAML list as frontmatter instead of a mapping", function (this: ToolhostWorld) {
  skillScenario(this).text = "---\n- name: local/listed\n- description: A list, not a mapping.\n---\nBody text.\n";
});

async function validate(world: ToolhostWorld) {
  const state = skillScenario(world);
  assert.ok(state.text !== undefined, "no SKILL.md text yet");
  state.validation = await world.skillCatalog.validateSkill({ content: state.text });
  return state.validation;
}

When("I parse the SKILL.md file", async function (this: ToolhostWorld) {
  const result = await validate(this);
  assert.ok(result.valid, `expected a valid SKILL.md, got: ${result.problems.map((p) => p.message).join("; ")}`);
});

When("I parse the SKILL.md file expecting an error", async function (this: ToolhostWorld) {
  const result = await validate(this);
  assert.equal(result.valid, false, "expected the SKILL.md to be refused");
  assert.equal(result.skill, undefined);
  recordError(
    this,
    result.problems.filter((p) => p.severity === ProblemSeverity.ERROR).map((p) => `${p.field}: ${p.message}`),
  );
});

Then("the agent skill parse error should mention {string}", function (this: ToolhostWorld, word: string) {
  const text = skillScenario(this).errorText ?? "";
  assert.ok(text.includes(word), `"${text}" should mention "${word}"`);
});

function parsed(world: ToolhostWorld): Skill {
  const skill = skillScenario(world).validation?.skill;
  assert.ok(skill !== undefined, "no parsed skill");
  return skill;
}

Then("the parsed skill name should be {string}", function (this: ToolhostWorld, name: string) {
  assert.equal(parsed(this).name, name);
});

Then("the parsed skill description should be {string}", function (this: ToolhostWorld, description: string) {
  assert.equal(parsed(this).description, description);
});

Then("the parsed skill body should contain {string}", function (this: ToolhostWorld, text: string) {
  assert.ok(
    parsed(this).body.includes(text),
    `${JSON.stringify(parsed(this).body)} should contain ${JSON.stringify(text)}`,
  );
});

Then("the parsed skill version should be {string}", function (this: ToolhostWorld, version: string) {
  assert.equal(parsed(this).version, version);
});

Then("the parsed skill allowed tools should include {string}", function (this: ToolhostWorld, tool: string) {
  assert.ok(
    parsed(this).allowedTools.includes(tool),
    `${JSON.stringify(parsed(this).allowedTools)} should include ${tool}`,
  );
});

Then(
  "the parsed skill metadata should have key {string} with value {string}",
  function (this: ToolhostWorld, key: string, value: string) {
    assert.equal(parsed(this).metadata?.[key], value);
  },
);

Then(/^the parsed skill body steps should appear in order: (.+)$/, function (this: ToolhostWorld, list: string) {
  const labels = [...list.matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? "");
  const body = parsed(this).body;
  const positions = labels.map((label) => body.indexOf(label));
  assert.ok(
    positions.every((p) => p >= 0),
    `every step should be in the body: ${JSON.stringify(positions)}`,
  );
  assert.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
    "the steps should keep their order",
  );
});

Then("the parsed skill steps should have {int} entries", function (this: ToolhostWorld, count: number) {
  assert.equal(parsed(this).steps.length, count);
});

Then(
  "the parsed skill step {int} content should be {string}",
  function (this: ToolhostWorld, position: number, content: string) {
    assert.equal(parsed(this).steps[position - 1]?.content, content);
  },
);

Then(
  "the parsed skill step {int} index should be {int}",
  function (this: ToolhostWorld, position: number, index: number) {
    assert.equal(parsed(this).steps[position - 1]?.index, index);
  },
);
