import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type {
  ListSkillResourcesResponse,
  ValidateSkillResponse,
} from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { Skill, SkillSummary } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import type { ToolhostWorld } from "../support/world.js";

// No steps here: the state the agent-skill steps share within one scenario, and the helpers
// that build a skills folder and serve it. Named *.steps.ts only so Cucumber loads it with them.

/** SkillScenario is what the agent-skill steps of one scenario remember. */
export interface SkillScenario {
  /** The SKILL.md text a "SKILL.md file with frontmatter" step wrote. */
  text?: string;
  /** The ValidateSkill answer of a parse step. */
  validation?: ValidateSkillResponse;
  /** The skill root the server is (or will be) started over. */
  skillsRoot?: string;
  /** The skill folder inside the root. */
  folder?: string;
  /** ListSkills' entry for the loaded skill (tier 1). */
  summary?: SkillSummary;
  descriptor?: ToolDescriptor;
  activated?: Skill;
  resources?: ListSkillResourcesResponse;
  /** The messages of the last step that expected an error, joined. */
  errorText?: string;
}

const scenarios = new WeakMap<ToolhostWorld, SkillScenario>();

/** skillScenario returns the agent-skill state of a scenario's World. */
export function skillScenario(world: ToolhostWorld): SkillScenario {
  let state = scenarios.get(world);
  if (state === undefined) {
    state = {};
    scenarios.set(world, state);
  }
  return state;
}

/** sessionId is the agent session every disclosure step uses. */
export const sessionId = "feature-session";

/** writeSkillFolder writes SKILL.md into a fresh skill folder under the scenario's skills root. */
export async function writeSkillFolder(world: ToolhostWorld, text: string): Promise<string> {
  const state = skillScenario(world);
  // Named after the skill so the Agent Skills "name equals folder" advice holds.
  const shortName = /^name:\s*[^/\s]+\/(\S+)\s*$/m.exec(text)?.[1] ?? "skill";
  state.skillsRoot = join(world.root, "skills");
  state.folder = join(state.skillsRoot, shortName);
  await mkdir(state.folder, { recursive: true });
  await writeFile(join(state.folder, "SKILL.md"), text);
  return state.folder;
}

/** putSkillFile writes a file inside the skill folder (e.g. "scripts/run.py"). */
export async function putSkillFile(world: ToolhostWorld, relative: string, content: string): Promise<void> {
  const folder = skillScenario(world).folder;
  assert.ok(folder !== undefined, "no agent skills folder yet");
  await mkdir(dirname(join(folder, relative)), { recursive: true });
  await writeFile(join(folder, relative), content);
}

/** serveSkills restarts the scenario's server over its skills root. */
export async function serveSkills(world: ToolhostWorld): Promise<void> {
  const root = skillScenario(world).skillsRoot;
  assert.ok(root !== undefined, "no agent skills folder yet");
  await world.restartServer({ skills: [{ path: root }] });
}

/** loadSkill serves the skills root and fetches the one skill in it, as discovery would. */
export async function loadSkill(world: ToolhostWorld): Promise<SkillSummary> {
  const state = skillScenario(world);
  await serveSkills(world);
  const { skills } = await world.skillCatalog.listSkills({ sessionId });
  const { errors } = await world.skillCatalog.listSkillErrors({});
  assert.equal(
    skills.length,
    1,
    `expected one skill, got ${skills.length}; errors: ${errors.map((e) => e.message).join("; ")}`,
  );
  state.summary = skills[0];
  return skills[0]!;
}

/** loadedName is the qualified name of the loaded skill. */
export function loadedName(world: ToolhostWorld): string {
  const name = skillScenario(world).summary?.name;
  assert.ok(name !== undefined, "no agent skill loaded yet");
  return name;
}

/** slotPaths returns the paths of one slot of a summary or descriptor, [] when it has none. */
export function slotPaths(slots: readonly { name: string; paths: string[] }[], slot: string): string[] {
  return slots.find((s) => s.name === slot)?.paths ?? [];
}

/** recordError keeps the messages of an expected failure for "... error should mention". */
export function recordError(world: ToolhostWorld, messages: readonly string[]): void {
  assert.ok(messages.length > 0, "expected an error, but there was none");
  skillScenario(world).errorText = messages.join("\n");
}
