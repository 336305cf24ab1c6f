import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ListToolsRequestSchema as FileListToolsRequestSchema } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import {
  GetSkillDescriptorRequestSchema,
  ListSkillsRequestSchema,
} from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { catalogToolDescriptors } from "./catalog-tool-descriptors.js";
import { uniqueFunctionNames } from "./unique-function-names.js";
import type { ToolsDeps } from "./tools-deps.js";

/** maxSkillPages bounds the ListSkills pages read for one tool list (1000 skills a page). */
const maxSkillPages = 10;

/**
 * maxSkillToolBytes bounds the skills' share of one list, as JSON: the reply holds the list twice
 * (descriptors and `rendered`) and must stay well within the 4 MiB send limit.
 */
const maxSkillToolBytes = 1024 * 1024;

/** ListModelToolsOptions narrows the list: skills or not, and one namespace. */
export interface ListModelToolsOptions {
  readonly includeSkills: boolean;
  readonly skillNamespace: string;
}

/**
 * listModelTools is every tool this caller may be handed, in one list: the file tools as
 * FileTools.ListTools gives them to this caller (its scope already applied), the SkillCatalog
 * tools, and one tool per skill the caller can see. Asked through the same ServiceImpls and
 * context as the RPCs, so nothing here decides visibility on its own.
 */
export async function listModelTools(
  deps: ToolsDeps,
  context: HandlerContext,
  options: ListModelToolsOptions,
): Promise<{ tools: ToolDescriptor[]; truncated: boolean }> {
  const files = await deps.fileTools.listTools(create(FileListToolsRequestSchema), context);
  const tools: ToolDescriptor[] = [...(files.tools as ToolDescriptor[]), ...catalogToolDescriptors];
  let truncated = false;
  if (options.includeSkills) {
    const skills = await skillTools(deps, context, options.skillNamespace);
    tools.push(...skills.tools);
    truncated = skills.truncated;
  }
  return { tools: uniqueFunctionNames(tools), truncated };
}

async function skillTools(
  deps: ToolsDeps,
  context: HandlerContext,
  namespace: string,
): Promise<{ tools: ToolDescriptor[]; truncated: boolean }> {
  const out: ToolDescriptor[] = [];
  let bytes = 0;
  let pageToken = "";
  for (let page = 0; page < maxSkillPages; page++) {
    const listed = await deps.skillCatalog.listSkills(
      create(ListSkillsRequestSchema, { namespace, pageSize: 1000, pageToken }),
      context,
    );
    for (const skill of listed.skills ?? []) {
      const got = await deps.skillCatalog.getSkillDescriptor(
        create(GetSkillDescriptorRequestSchema, { name: skill.name }),
        context,
      );
      const descriptor = got.descriptor as ToolDescriptor | undefined;
      if (descriptor === undefined) continue;
      bytes += descriptor.name.length + descriptor.description.length + descriptor.inputSchema.length + 256;
      if (bytes > maxSkillToolBytes) return { tools: out, truncated: true };
      out.push(descriptor);
    }
    pageToken = listed.nextPageToken ?? "";
    if (pageToken === "") return { tools: out, truncated: false };
  }
  return { tools: out, truncated: true };
}
