import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { skillDescriptor } from "../../skills/catalog/skill-descriptor.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { descriptorMessage } from "./skill-messages.js";
import { requireNamespace } from "./namespace-scope.js";

/** getSkillDescriptorHandler serves GetSkillDescriptor: the skill as a ToolDescriptor. */
export function getSkillDescriptorHandler(
  ctx: SkillCatalogContext,
): ServiceImpl<typeof SkillCatalog>["getSkillDescriptor"] {
  return async (request, context) => {
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    return { descriptor: descriptorMessage(skillDescriptor(ctx.catalog.index.get(request.name))) };
  };
}
