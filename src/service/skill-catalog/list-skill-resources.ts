import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { SkillResourceSchema } from "../../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { listResourceSlots } from "../../skills/load/list-resource-slots.js";
import { parseSlotName } from "../../skills/resource-slot-name.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { requireNamespace } from "./namespace-scope.js";

/**
 * listSkillResourcesHandler serves ListSkillResources: tier 3, the slot folders listed now (not
 * as of the last scan), sorted by slot and path.
 */
export function listSkillResourcesHandler(
  ctx: SkillCatalogContext,
): ServiceImpl<typeof SkillCatalog>["listSkillResources"] {
  return async (request, context) => {
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    const skill = ctx.catalog.index.get(request.name);
    const only = parseSlotName(request.slot, true);
    const listing = await listResourceSlots(skill.folder, {
      root: skill.root,
      allowHardLinks: ctx.allowHardLinks === true,
    });
    const resources = listing.slots
      .filter((slot) => only === undefined || slot.name === only)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((slot) =>
        slot.files.map((file) =>
          create(SkillResourceSchema, { slot: slot.name, path: file.path, size: BigInt(file.size) }),
        ),
      );
    return { resources };
  };
}
