import assert from "node:assert/strict";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { Given, Then, When } from "@cucumber/cucumber";
import { Access } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { ConfigError } from "../../src/config/config-error.js";
import type { ToolhostWorld } from "../support/world.js";
import {
  loadedName,
  loadSkill,
  putSkillFile,
  recordError,
  serveSkills,
  sessionId,
  skillScenario,
  slotPaths,
  writeSkillFolder,
} from "./skills-state.steps.js";

// Seed 001's folder, tool-mapping and resource-slot scenarios: the scenario builds a skills folder
// in its temporary directory, the server is restarted over it as a skill root, and the skill is
// looked at through ListSkills, GetSkillDescriptor, ActivateSkill and ListSkillErrors.

Given("an agent skills folder with a valid SKILL.md:", async function (this: ToolhostWorld, text: string) {
  await writeSkillFolder(this, `${text}\n`);
});

Given(
  "the folder contains a script file {string} with content {string}",
  async function (this: ToolhostWorld, name: string, content: string) {
    await putSkillFile(this, join("scripts", name), content);
  },
);

Given(
  "the folder contains a reference file {string} with content {string}",
  async function (this: ToolhostWorld, name: string, content: string) {
    await putSkillFile(this, join("references", name), content);
  },
);

Given(
  "the folder contains an asset file {string} with content {string}",
  async function (this: ToolhostWorld, name: string, content: string) {
    await putSkillFile(this, join("assets", name), content);
  },
);

Given("the scripts folder contains a nested sub-directory", async function (this: ToolhostWorld) {
  const folder = skillScenario(this).folder;
  assert.ok(folder !== undefined);
  await mkdir(join(folder, "scripts", "nested", "deeper"), { recursive: true });
});

Given("an agent skills folder without a SKILL.md file", async function (this: ToolhostWorld) {
  const state = skillScenario(this);
  state.skillsRoot = join(this.root, "no-skill-md");
  state.folder = state.skillsRoot;
  await putSkillFile(this, "scripts/run.py", "# run");
});

Given("a non-existent agent skills folder path", function (this: ToolhostWorld) {
  skillScenario(this).skillsRoot = join(this.root, "does-not-exist");
});

Given("an agent skills folder path that is a file", async function (this: ToolhostWorld) {
  const state = skillScenario(this);
  state.skillsRoot = join(this.root, "SKILL.md");
  await writeFile(state.skillsRoot, "---\nname: local/file\ndescription: A file, not a folder.\n---\n");
});

When("I load the agent skills folder", async function (this: ToolhostWorld) {
  await loadSkill(this);
});

When("I load the agent skills folder expecting an error", async function (this: ToolhostWorld) {
  // A skill root that is missing or not a folder stops start-up (src/config/start-up-inputs.ts):
  // the error is the refusal, which names the folder.
  try {
    await serveSkills(this);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    recordError(this, [err.message]);
    return;
  }
  const { skills } = await this.skillCatalog.listSkills({});
  assert.deepEqual(skills, [], "no skill should load");
  const { errors } = await this.skillCatalog.listSkillErrors({});
  recordError(
    this,
    errors.map((e) => `${e.path}: ${e.message}`),
  );
});

Then("the agent skill load error should mention {string}", function (this: ToolhostWorld, word: string) {
  const text = skillScenario(this).errorText ?? "";
  assert.ok(text.includes(word), `"${text}" should mention "${word}"`);
});

Then("the loaded agent skill name should be {string}", function (this: ToolhostWorld, name: string) {
  assert.equal(skillScenario(this).summary?.name, name);
});

Then("the loaded agent skill description should be {string}", function (this: ToolhostWorld, description: string) {
  assert.equal(skillScenario(this).summary?.description, description);
});

const slotOf: Record<string, string> = { script: "scripts", reference: "references", asset: "assets" };

Then(
  /^the loaded agent skill (script|reference|asset) paths should include "([^"]*)"$/,
  function (this: ToolhostWorld, kind: string, path: string) {
    const paths = slotPaths(skillScenario(this).summary?.resourceSlots ?? [], slotOf[kind]!);
    assert.ok(paths.includes(path), `${JSON.stringify(paths)} should include ${path}`);
  },
);

Then(
  /^the loaded agent skill (script|reference|asset) paths should be empty$/,
  function (this: ToolhostWorld, kind: string) {
    assert.deepEqual(slotPaths(skillScenario(this).summary?.resourceSlots ?? [], slotOf[kind]!), []);
  },
);

Then("the loaded agent skill script paths should not include any directories", async function (this: ToolhostWorld) {
  const { folder, summary } = skillScenario(this);
  const paths = slotPaths(summary?.resourceSlots ?? [], "scripts");
  assert.ok(paths.length > 0);
  for (const path of paths) {
    assert.ok((await stat(join(folder!, "scripts", path))).isFile(), `${path} should be a file`);
  }
});

Then("all script paths should be relative to the skill folder", async function (this: ToolhostWorld) {
  const { folder, summary } = skillScenario(this);
  const paths = slotPaths(summary?.resourceSlots ?? [], "scripts");
  assert.ok(paths.length > 0);
  for (const path of paths) {
    assert.ok(!isAbsolute(path) && !path.split("/").includes(".."), `${path} should be relative and stay inside`);
    assert.ok((await stat(join(folder!, "scripts", path))).isFile());
  }
});

Then("the loaded agent skill folder property should be set", async function (this: ToolhostWorld) {
  const { skill } = await this.skillCatalog.activateSkill({ name: loadedName(this), sessionId });
  assert.equal(skill?.path, skillScenario(this).folder);
  assert.ok((await stat(join(skill!.path, "SKILL.md"))).isFile());
});

Then("the loaded skill resource_slots property should be empty", function (this: ToolhostWorld) {
  assert.deepEqual(skillScenario(this).summary?.resourceSlots, []);
});

When("I convert the loaded agent skill to a tool descriptor", async function (this: ToolhostWorld) {
  skillScenario(this).descriptor = (await this.skillCatalog.getSkillDescriptor({ name: loadedName(this) })).descriptor;
});

function descriptor(world: ToolhostWorld) {
  const value = skillScenario(world).descriptor;
  assert.ok(value !== undefined, "no tool descriptor yet");
  return value;
}

Then("the tool descriptor source should be {string}", function (this: ToolhostWorld, source: string) {
  assert.equal(descriptor(this).source, source);
});

Then("the tool descriptor name should be {string}", function (this: ToolhostWorld, name: string) {
  assert.equal(descriptor(this).name, name);
});

Then(/^the tool descriptor should have read_only set to (True|False)$/, function (this: ToolhostWorld, value: string) {
  assert.equal(descriptor(this).readOnly, value === "True");
});

Then(/^the tool descriptor should have writes set to (True|False)$/, function (this: ToolhostWorld, value: string) {
  assert.equal(descriptor(this).writes, value === "True");
});

Then("the tool descriptor allowed tools should include {string}", function (this: ToolhostWorld, tool: string) {
  assert.ok(
    descriptor(this).allowedTools.includes(tool),
    `${JSON.stringify(descriptor(this).allowedTools)} should include ${tool}`,
  );
});

Then("the tool descriptor agent_skill_path should be set", function (this: ToolhostWorld) {
  assert.equal(descriptor(this).agentSkillPath, skillScenario(this).folder);
});

Then("the tool descriptor should have {int} resource slot\\(s)", function (this: ToolhostWorld, count: number) {
  assert.equal(descriptor(this).resourceSlots.length, count);
});

Then(
  "the tool descriptor resource slot {string} should have access {string}",
  function (this: ToolhostWorld, slot: string, access: string) {
    const found = descriptor(this).resourceSlots.find((s) => s.name === slot);
    assert.ok(found !== undefined, `no slot ${slot}`);
    assert.equal(access, "read_only");
    assert.equal(found.access, Access.READ_ONLY);
  },
);
