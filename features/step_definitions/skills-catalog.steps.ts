import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { After, Given, Then, When } from "@cucumber/cucumber";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import type {
  ReadSkillResourceResponse,
  WatchSkillsResponse,
} from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { SkillEvent } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { waitFor } from "../../test/support/wait-for.js";
import type { ToolhostWorld } from "../support/world.js";
import {
  loadSkill,
  loadedName,
  putSkillFile,
  recordError,
  serveSkills,
  skillScenario,
  writeSkillFolder,
} from "./skills-state.steps.js";

// Steps of skill-catalog.feature: behaviour of the SkillCatalog service beyond seed 001 (resource
// streaming, errors by name, declared namespaces, paging, watching).

interface CatalogScenario {
  parts?: ReadSkillResourceResponse[];
  error?: ConnectError;
  pages?: string[][];
  events?: WatchSkillsResponse[];
  stopWatching?: AbortController;
}

const catalogScenarios = new WeakMap<ToolhostWorld, CatalogScenario>();
const catalog = (world: ToolhostWorld): CatalogScenario => {
  let state = catalogScenarios.get(world);
  if (state === undefined) catalogScenarios.set(world, (state = {}));
  return state;
};

async function failing(world: ToolhostWorld, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    catalog(world).error = ConnectError.from(err);
    recordError(world, [catalog(world).error!.rawMessage]);
    return;
  }
  assert.fail("expected the call to fail");
}

/** until re-checks a condition until it holds; waitFor's deadline is a hang guard inside Cucumber's step timeout. */
function until<T>(check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  return waitFor("the catalog to change", check, { timeoutMs: 20_000 });
}

Given("an agent skills folder with a SKILL.md:", async function (this: ToolhostWorld, text: string) {
  await writeSkillFolder(this, `${text}\n`);
});

Given("the skills folder holds {int} agent skills", async function (this: ToolhostWorld, count: number) {
  for (let i = count; i >= 1; i--) {
    await writeSkillFolder(this, `---\nname: local/skill-${i}\ndescription: Skill number ${i}.\n---\nBody ${i}.\n`);
  }
});

When("the skill catalog serves the agent skills folder", async function (this: ToolhostWorld) {
  await serveSkills(this);
});

When(
  "the skill catalog serves the agent skills folder with namespace {string}",
  async function (this: ToolhostWorld, namespace: string) {
    await this.restartServer({ skills: [{ path: skillScenario(this).skillsRoot!, namespace }] });
  },
);

When(
  "I read the agent skill resource {string} from slot {string}",
  async function (this: ToolhostWorld, path: string, slot: string) {
    await loadSkill(this);
    const parts: ReadSkillResourceResponse[] = [];
    for await (const part of this.skillCatalog.readSkillResource({ name: loadedName(this), slot, path }))
      parts.push(part);
    catalog(this).parts = parts;
  },
);

When(
  "I read the agent skill resource {string} from slot {string} expecting an error",
  async function (this: ToolhostWorld, path: string, slot: string) {
    await loadSkill(this);
    await failing(this, async () => {
      for await (const part of this.skillCatalog.readSkillResource({ name: loadedName(this), slot, path })) void part;
    });
  },
);

Then("the skill resource stream should start with info and end with a summary", function (this: ToolhostWorld) {
  const cases = (catalog(this).parts ?? []).map((p) => p.part.case);
  assert.equal(cases[0], "info");
  assert.equal(cases[cases.length - 1], "summary");
});

Then("the skill resource text should be {string}", function (this: ToolhostWorld, text: string) {
  const chunks = (catalog(this).parts ?? []).filter((p) => p.part.case === "text").map((p) => p.part.value as string);
  assert.equal(chunks.join(""), text);
});

When("I activate the agent skill {string} expecting an error", async function (this: ToolhostWorld, name: string) {
  await failing(this, () => this.skillCatalog.activateSkill({ name }));
});

When(
  "I list the skill catalog with page token {string} expecting an error",
  async function (this: ToolhostWorld, token: string) {
    await failing(this, () => this.skillCatalog.listSkills({ pageToken: token }));
  },
);

Then(
  "the skill catalog error should be {string} with reason {string}",
  function (this: ToolhostWorld, code: string, reason: string) {
    const error = catalog(this).error;
    assert.ok(error !== undefined, "expected a failed call");
    assert.equal(
      Code[error.code],
      code
        .toLowerCase()
        .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
        .replace(/^./, (c) => c.toUpperCase()),
    );
    assert.equal(error.findDetails(ErrorInfoSchema)[0]?.reason, reason);
  },
);

Then(
  "the skill catalog errors should list the SKILL.md with field {string} on line {int}",
  async function (this: ToolhostWorld, field: string, line: number) {
    const { errors } = await this.skillCatalog.listSkillErrors({});
    assert.deepEqual(
      errors.map((e) => [e.path, e.field, e.line]),
      [[join(skillScenario(this).folder!, "SKILL.md"), field, line]],
    );
  },
);

Then("the skill catalog should list {string}", async function (this: ToolhostWorld, name: string) {
  const { skills } = await this.skillCatalog.listSkills({});
  assert.ok(
    skills.some((s) => s.name === name),
    `${JSON.stringify(skills.map((s) => s.name))} should include ${name}`,
  );
});

When("I list the skill catalog {int} at a time", async function (this: ToolhostWorld, size: number) {
  const pages: string[][] = [];
  let token = "";
  do {
    const page = await this.skillCatalog.listSkills({ pageSize: size, pageToken: token });
    pages.push(page.skills.map((s) => s.name));
    token = page.nextPageToken;
  } while (token !== "");
  catalog(this).pages = pages;
});

Then(
  "I should receive {int} pages listing all {int} skills in name order",
  function (this: ToolhostWorld, pageCount: number, skillCount: number) {
    const pages = catalog(this).pages ?? [];
    assert.equal(pages.length, pageCount);
    const names = pages.flat();
    assert.equal(names.length, skillCount);
    assert.deepEqual(names, [...names].sort());
    assert.equal(new Set(names).size, skillCount);
  },
);

Given("the skill catalog is being watched", async function (this: ToolhostWorld) {
  const state = catalog(this);
  state.events = [];
  state.stopWatching = new AbortController();
  const stream = this.skillCatalog.watchSkills({}, { signal: state.stopWatching.signal });
  void (async () => {
    try {
      for await (const event of stream) state.events!.push(event);
    } catch {
      // Ends when the scenario stops watching.
    }
  })();
  // Answered on the same connection only after the server took the watch request in.
  await this.skillCatalog.listSkills({});
});

When("a SKILL.md for {string} is added to the skills folder", async function (this: ToolhostWorld, name: string) {
  await writeSkillFolder(this, `---\nname: ${name}\ndescription: Added while watched.\n---\nBody.\n`);
});

When("the SKILL.md folder of {string} is removed", async function (this: ToolhostWorld, name: string) {
  await rm(join(skillScenario(this).skillsRoot!, name.split("/")[1]!), { recursive: true });
});

When("a script {string} is added to the skill folder", async function (this: ToolhostWorld, path: string) {
  await putSkillFile(this, join("scripts", path), "echo\n");
});

Then(
  /^the skill catalog watch should report (ADDED|UPDATED|REMOVED|INVALID) for "([^"]*)"$/,
  async function (this: ToolhostWorld, kind: string, name: string) {
    const wanted = SkillEvent[kind as keyof typeof SkillEvent];
    await until(() => catalog(this).events?.find((e) => e.event === wanted && e.name === name));
  },
);

Then("the skill catalog should eventually list {string}", async function (this: ToolhostWorld, name: string) {
  await until(async () =>
    (await this.skillCatalog.listSkills({})).skills.some((s) => s.name === name) ? true : undefined,
  );
});

Then("the skill catalog should eventually not list {string}", async function (this: ToolhostWorld, name: string) {
  await until(async () =>
    (await this.skillCatalog.listSkills({})).skills.some((s) => s.name === name) ? undefined : true,
  );
});

After(function (this: ToolhostWorld) {
  catalog(this).stopWatching?.abort();
});
