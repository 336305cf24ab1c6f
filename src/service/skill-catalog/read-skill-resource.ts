import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { readChunks } from "../../files/read/read-chunks.js";
import { createSandbox } from "../../sandbox/create-sandbox.js";
import { resolveSlotFolder } from "../../skills/resolve-slot-folder.js";
import { parseSlotName } from "../../skills/resource-slot-name.js";
import type { ResourceSlotName } from "../../skills/skill-types.js";
import { readPartMessage, readRequestFromFields } from "../file-tools/read-part-message.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { requireNamespace } from "./namespace-scope.js";

/**
 * readSkillResourceHandler serves ReadSkillResource with ReadFile's reader and framing, through
 * a read-only sandbox whose only root is the slot folder's real path, which must lie inside the
 * skill folder's own real path (a slot linked to another skill is not a slot): `..`, absolute
 * paths elsewhere and links out of the slot are refused exactly as FileTools refuses them
 * outside its roots.
 */
export function readSkillResourceHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["readSkillResource"] {
  return async function* (request, context) {
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    const skill = ctx.catalog.index.get(request.name);
    const slot = parseSlotName(request.slot, false) as ResourceSlotName;
    const slotFolder = await resolveSlotFolder(skill.folder, slot);
    if (slotFolder === undefined) {
      throw new ToolhostError("NOT_FOUND", `skill "${skill.name}" has no ${slot}/ folder: ListSkillResources lists the files it has.`, { name: skill.name, slot });
    }
    const sandbox = await createSandbox([{ path: slotFolder, readOnly: true }], { readOnly: true });
    const parts = readChunks(sandbox, readRequestFromFields(request.path, request), ctx.limits, context.signal);
    for await (const part of parts) {
      yield readPartMessage(part);
    }
  };
}
