import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  ProblemSeverity,
  SkillErrorSchema,
  SkillProblemSchema,
  SkillSchema,
  SkillSummarySchema,
  type Skill,
  type SkillError,
  type SkillProblem,
  type SkillSummary,
} from "../../../gen/ts/toolhost/skills/v1/skill_pb.js";
import {
  Access,
  ResourceSlotSchema,
  Tier,
  ToolDescriptorSchema,
  type ResourceSlot,
  type ToolDescriptor,
} from "../../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import type { SkillDescriptorData } from "../../skills/catalog/skill-descriptor.js";
import type {
  LoadedSkill,
  ParsedSkill,
  ResourceSlotData,
  SkillLoadError,
  SkillProblem as DomainProblem,
} from "../../skills/skill-types.js";
import { functionNameOf } from "../function-name.js";

/** slotMessages maps a skill's slot folders to read-only ResourceSlots. */
export function slotMessages(slots: readonly ResourceSlotData[]): ResourceSlot[] {
  return slots.map((slot) =>
    create(ResourceSlotSchema, { name: slot.name, access: Access.READ_ONLY, paths: slot.files.map((f) => f.path) }),
  );
}

/** summaryMessage maps a catalog skill to tier 1: no body, ever. */
export function summaryMessage(skill: LoadedSkill, active: boolean): SkillSummary {
  return create(SkillSummarySchema, {
    name: skill.name,
    namespace: skill.namespace,
    shortName: skill.shortName,
    description: skill.description,
    version: skill.version,
    resourceSlots: slotMessages(skill.slots),
    active,
    digest: skill.digest,
  });
}

/**
 * skillMessage maps a parsed skill to tier 2. `loaded` is undefined for ValidateSkill, whose
 * skill has no folder, slots or activation.
 */
export function skillMessage(
  parsed: ParsedSkill,
  loaded: LoadedSkill | undefined,
  active: boolean,
  digest: string,
): Skill {
  const init: MessageInitShape<typeof SkillSchema> = {
    name: parsed.name,
    namespace: parsed.namespace,
    shortName: parsed.shortName,
    description: parsed.description,
    version: parsed.version,
    resourceSlots: loaded === undefined ? [] : slotMessages(loaded.slots),
    active,
    digest,
    body: parsed.body,
    steps: parsed.steps.map((s) => ({ index: s.index, content: s.content })),
    allowedTools: [...parsed.allowedTools],
    license: parsed.license,
    metadataText: parsed.metadataText,
    compatibilityText: parsed.compatibilityText,
    path: loaded?.folder ?? "",
  };
  // StructuredMap is exactly the JSON a Struct holds (the parser already turned NaN, binary and
  // non-string keys into text), so it is passed as the JsonObject protobuf-es expects.
  if (parsed.metadata !== undefined) init.metadata = parsed.metadata as JsonObject;
  if (parsed.compatibility !== undefined) init.compatibility = parsed.compatibility as JsonObject;
  return create(SkillSchema, init);
}

/** descriptorMessage maps a skill descriptor to the shared ToolDescriptor. */
export function descriptorMessage(data: SkillDescriptorData): ToolDescriptor {
  return create(ToolDescriptorSchema, {
    name: data.name,
    functionName: functionNameOf(data.name, "skill"),
    tier: Tier.READ,
    description: data.description,
    source: data.source,
    readOnly: data.readOnly,
    writes: data.writes,
    method: data.method,
    allowedTools: [...data.allowedTools],
    agentSkillPath: data.agentSkillPath,
    resourceSlots: data.resourceSlots.map((slot) =>
      create(ResourceSlotSchema, { name: slot.name, access: Access.READ_ONLY, paths: [...slot.paths] }),
    ),
  });
}

/** problemMessage maps a parse problem to a SkillProblem. */
export function problemMessage(problem: DomainProblem): SkillProblem {
  return create(SkillProblemSchema, {
    severity: problem.severity === "error" ? ProblemSeverity.ERROR : ProblemSeverity.WARNING,
    field: problem.field,
    message: problem.message,
    line: problem.line,
  });
}

/** errorMessage maps a load error to a SkillError. */
export function errorMessage(error: SkillLoadError): SkillError {
  return create(SkillErrorSchema, {
    path: error.path,
    message: error.message,
    field: error.field,
    line: error.line,
    name: error.name ?? "",
  });
}
