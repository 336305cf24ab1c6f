import type { LoadedSkill } from "../skill-types.js";

/** SkillDescriptorData is a skill in the shape of the shared ToolDescriptor, without protobuf. */
export interface SkillDescriptorData {
  readonly name: string;
  readonly description: string;
  readonly source: "agent_skill";
  readonly readOnly: true;
  readonly writes: false;
  /** Skills are instructions, not executable methods. */
  readonly method: "";
  readonly allowedTools: readonly string[];
  readonly agentSkillPath: string;
  readonly resourceSlots: readonly {
    readonly name: string;
    readonly access: "read_only";
    readonly paths: readonly string[];
  }[];
}

/**
 * skillDescriptor maps a skill to a tool descriptor: source "agent_skill", read-only, never
 * writing, its allowed tools, the folder it lives in, and one read-only slot per resource folder
 * that exists, listing file paths relative to the slot (sub-directories are not files).
 */
export function skillDescriptor(skill: LoadedSkill): SkillDescriptorData {
  return {
    name: skill.name,
    description: skill.description,
    source: "agent_skill",
    readOnly: true,
    writes: false,
    method: "",
    allowedTools: skill.allowedTools,
    agentSkillPath: skill.folder,
    resourceSlots: skill.slots.map((slot) => ({
      name: slot.name,
      access: "read_only",
      paths: slot.files.map((f) => f.path),
    })),
  };
}
