import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { readChunks } from "../../files/read/read-chunks.js";
import { parseSlotName } from "../../skills/resource-slot-name.js";
import type { ResourceSlotName } from "../../skills/skill-types.js";
import { readPartMessage, readRequestFromFields } from "../file-tools/read-part-message.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { requireNamespace } from "./namespace-scope.js";
import { openSlotSandbox } from "./slot-sandbox.js";

/**
 * readSkillResourceHandler serves ReadSkillResource with ReadFile's reader and framing, through
 * the slot folder's own read-only sandbox (openSlotSandbox), so every file is opened and
 * verified as FileTools opens files in its roots.
 */
export function readSkillResourceHandler(
  ctx: SkillCatalogContext,
): ServiceImpl<typeof SkillCatalog>["readSkillResource"] {
  return async function* (request, context) {
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    const skill = ctx.catalog.index.get(request.name);
    const slot = parseSlotName(request.slot, false) as ResourceSlotName;
    const sandbox = await openSlotSandbox(skill, slot, ctx.allowHardLinks === true);
    const parts = readChunks(sandbox, readRequestFromFields(request.path, request), ctx.limits, context.signal);
    for await (const part of parts) {
      yield readPartMessage(part);
    }
  };
}
