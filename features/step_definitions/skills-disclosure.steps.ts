import assert from "node:assert/strict";
import { mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { Given, Then, When } from "@cucumber/cucumber";
import { ConnectError } from "@connectrpc/connect";
import { Access } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import type { ToolhostWorld } from "../support/world.js";
import { loadedName, loadSkill, recordError, sessionId, skillScenario } from "./skills-state.steps.js";

// Seed 001's progressive-disclosure scenarios (discover = ListSkills, activate = ActivateSkill,
// resources = ListSkillResources, deactivate = DeactivateSkill, all for one agent session) and
// the translations of its Python-only coverage scenarios to what a gRPC client can see.

When("I call discover on the agent skill", async function (this: ToolhostWorld) {
  await loadSkill(this);
});

function discovered(world: ToolhostWorld) {
  const summary = skillScenario(world).summary;
  assert.ok(summary !== undefined, "nothing discovered yet");
  return summary;
}

Then("the discover result should have name {string}", function (this: ToolhostWorld, name: string) {
  assert.equal(discovered(this).name, name);
});

Then("the discover result should have description {string}", function (this: ToolhostWorld, description: string) {
  assert.equal(discovered(this).description, description);
});

Then("the discover result body should be empty", async function (this: ToolhostWorld) {
  const summary = discovered(this);
  assert.equal("body" in summary, false, "a tier-1 summary has no body field");
  const text = await readFile(join(skillScenario(this).folder!, "SKILL.md"), "utf8");
  const bodyLines = text
    .split("---\n")
    .slice(2)
    .join("---\n")
    .split("\n")
    .filter((l) => l.trim() !== "");
  const json = JSON.stringify(summary);
  for (const line of bodyLines) {
    assert.ok(!json.includes(line), `the summary must not carry the body line ${JSON.stringify(line)}`);
  }
});

Then("the discover result should have {int} resource slot\\(s)", function (this: ToolhostWorld, count: number) {
  assert.equal(discovered(this).resourceSlots.length, count);
});

Then(
  "the discover result resource slot {string} should have access {string}",
  function (this: ToolhostWorld, slot: string, access: string) {
    const found = discovered(this).resourceSlots.find((s) => s.name === slot);
    assert.ok(found !== undefined, `no slot ${slot}`);
    assert.equal(access, "read_only");
    assert.equal(found.access, Access.READ_ONLY);
  },
);

When("I call activate on the agent skill", async function (this: ToolhostWorld) {
  skillScenario(this).activated = (await this.skillCatalog.activateSkill({ name: loadedName(this), sessionId })).skill;
});

Then("the activate result body should contain {string}", function (this: ToolhostWorld, text: string) {
  const body = skillScenario(this).activated?.body ?? "";
  assert.ok(body.includes(text), `${JSON.stringify(body)} should contain ${JSON.stringify(text)}`);
});

When("I list available resources", async function (this: ToolhostWorld) {
  skillScenario(this).resources = await this.skillCatalog.listSkillResources({ name: loadedName(this) });
});

Then("the resources list should include {string}", function (this: ToolhostWorld, path: string) {
  const paths = skillScenario(this).resources?.resources.map((r) => r.path) ?? [];
  assert.ok(paths.includes(path), `${JSON.stringify(paths)} should include ${path}`);
});

When("I call deactivate on the agent skill", async function (this: ToolhostWorld) {
  const { wasActive } = await this.skillCatalog.deactivateSkill({ name: loadedName(this), sessionId });
  assert.equal(wasActive, true, "the skill was active before deactivation");
});

Then("the agent skill body should be cleared", async function (this: ToolhostWorld) {
  const { skills } = await this.skillCatalog.listSkills({ sessionId });
  assert.equal(skills.find((s) => s.name === loadedName(this))?.active, false);
  assert.equal((await this.skillCatalog.deactivateSkill({ name: loadedName(this), sessionId })).wasActive, false);
});

// --- Translations of the Python-only coverage scenarios -----------------------------------

Given("an agent skills folder whose SKILL.md is a link to a missing file", async function (this: ToolhostWorld) {
  const state = skillScenario(this);
  state.skillsRoot = join(this.root, "skills");
  state.folder = join(state.skillsRoot, "dangling");
  await mkdir(state.folder, { recursive: true });
  await symlink("gone.md", join(state.folder, "SKILL.md"));
});

async function expectCallError(world: ToolhostWorld, call: () => Promise<unknown>): Promise<ConnectError> {
  try {
    await call();
  } catch (err) {
    const error = ConnectError.from(err);
    recordError(world, [error.rawMessage]);
    // Kept where "the call fails with ... and reason ..." reads a failed call.
    world.error = error;
    return error;
  }
  assert.fail("expected the call to fail");
}

When("I activate an agent skill without naming it expecting an error", async function (this: ToolhostWorld) {
  await expectCallError(this, () => this.skillCatalog.activateSkill({ name: "", sessionId }));
});

When(
  "I read an agent skill resource from a slot folder the skill does not have expecting an error",
  async function (this: ToolhostWorld) {
    await loadSkill(this);
    await expectCallError(this, async () => {
      for await (const part of this.skillCatalog.readSkillResource({
        name: loadedName(this),
        slot: "assets",
        path: "anything.json",
      })) {
        void part;
      }
    });
  },
);
