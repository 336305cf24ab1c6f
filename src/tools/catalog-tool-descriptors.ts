import { create, type DescMessage } from "@bufbuild/protobuf";
import {
  ActivateSkillRequestSchema,
  ListSkillResourcesRequestSchema,
  ListSkillsRequestSchema,
  ReadSkillResourceRequestSchema,
} from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tier, ToolDescriptorSchema, type ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { functionNameOf } from "../service/function-name.js";
import { jsonSchemaOf } from "../service/json-schema-of.js";

const nameHelp = 'The skill\'s qualified name, "namespace/short-name", as list_skills returns it.';

const fieldDescriptions: Record<string, string> = {
  "ListSkillsRequest.namespace": "Only skills of this namespace; omit for all.",
  "ListSkillsRequest.query": "Only skills whose name or description contains every word of this text.",
  "ListSkillsRequest.sessionId": "Marks the skills activated in this session as active.",
  "ListSkillsRequest.pageSize": "Skills per page (default 100).",
  "ListSkillsRequest.pageToken": "nextPageToken of the previous page.",
  "ActivateSkillRequest.name": nameHelp,
  "ActivateSkillRequest.sessionId": "The agent session the activation belongs to.",
  "ListSkillResourcesRequest.name": nameHelp,
  "ListSkillResourcesRequest.slot": '"scripts", "references" or "assets"; omit for all three.',
  "ReadSkillResourceRequest.name": nameHelp,
  "ReadSkillResourceRequest.slot": '"scripts", "references" or "assets".',
  "ReadSkillResourceRequest.path": "Path of the file relative to the slot folder, as list_skill_resources returns it.",
  "ReadSkillResourceRequest.mode": "READ_MODE_TEXT (default) or READ_MODE_BYTES.",
  "ReadSkillResourceRequest.offset": "Text mode: first line to return, 0-based.",
  "ReadSkillResourceRequest.limit": "Text mode: number of lines to return; omit for all.",
};

function descriptor(name: string, method: string, request: DescMessage, description: string): ToolDescriptor {
  return create(ToolDescriptorSchema, {
    name,
    functionName: functionNameOf(name, "builtin"),
    tier: Tier.READ,
    description,
    source: "builtin",
    readOnly: true,
    writes: false,
    method: `/toolhost.skills.v1.SkillCatalog/${method}`,
    inputSchema: JSON.stringify(jsonSchemaOf(request, fieldDescriptions)),
  });
}

/**
 * catalogToolDescriptors are the SkillCatalog methods a model calls to use skills: discover
 * them, activate one (its instructions), and list and read its resources. Each skill is also a
 * tool of its own (calling it activates it); these serve the model that works through the list.
 */
export const catalogToolDescriptors: readonly ToolDescriptor[] = Object.freeze([
  descriptor(
    "catalog/list-skills",
    "ListSkills",
    ListSkillsRequestSchema,
    "List the available Agent Skills: name, description and resource folders, never their instructions. Use activate_skill to get a skill's instructions.",
  ),
  descriptor(
    "catalog/activate-skill",
    "ActivateSkill",
    ActivateSkillRequestSchema,
    "Activate an Agent Skill: returns its full instructions (the SKILL.md body) and steps, to follow in this session.",
  ),
  descriptor(
    "catalog/list-skill-resources",
    "ListSkillResources",
    ListSkillResourcesRequestSchema,
    "List the files in a skill's scripts/, references/ and assets/ folders.",
  ),
  descriptor(
    "catalog/read-skill-resource",
    "ReadSkillResource",
    ReadSkillResourceRequestSchema,
    "Read one file of a skill's scripts/, references/ or assets/ folder (text by default, or bytes).",
  ),
]);
