import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { readChunks } from "../../files/read/read-chunks.js";
import { createSandbox } from "../../sandbox/create-sandbox.js";
import { openSkillSlot } from "../../skills/load/resolve-slot-folder.js";
import { parseSlotName } from "../../skills/resource-slot-name.js";
import type { ResourceSlotName } from "../../skills/skill-types.js";
import { readPartMessage, readRequestFromFields } from "../file-tools/read-part-message.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { requireNamespace } from "./namespace-scope.js";

/**
 * readSkillResourceHandler serves ReadSkillResource with ReadFile's reader and framing, through
 * a read-only sandbox whose only root is the slot folder's real path, as the kernel reports it
 * for a descriptor opened relative to the skill folder's own verified descriptor (so the slot is
 * never looked up by name a second time): it must lie strictly inside the skill folder's real
 * path, which must lie in the skill root. Every file is then opened and verified by that
 * sandbox: `..`, absolute paths elsewhere, links out of the slot, a slot swapped for a link
 * mid-call, and files with several hard links (unless allowed) are refused exactly as FileTools
 * refuses them outside its roots.
 */
export function readSkillResourceHandler(
  ctx: SkillCatalogContext,
): ServiceImpl<typeof SkillCatalog>["readSkillResource"] {
  return async function* (request, context) {
    requireNamespace(context, request.name);
    await ctx.catalog.ready;
    const skill = ctx.catalog.index.get(request.name);
    const slot = parseSlotName(request.slot, false) as ResourceSlotName;
    const missing = () =>
      new ToolhostError(
        "NOT_FOUND",
        `skill "${skill.name}" has no ${slot}/ folder: ListSkillResources lists the files it has.`,
        { name: skill.name, slot },
      );
    const slotFolder = await openSkillSlot(skill.folder, skill.root, slot);
    if (slotFolder === undefined) {
      throw missing();
    }
    let sandbox;
    try {
      sandbox = await createSandbox([{ path: slotFolder.realPath, readOnly: true }], {
        readOnly: true,
        allowHardLinks: ctx.allowHardLinks === true,
      });
    } finally {
      await slotFolder.close();
    }
    if (sandbox.roots[0]!.path !== slotFolder.realPath) {
      // Its path no longer names the verified folder: swapped since. Serve nothing.
      throw new ToolhostError(
        "FILE_CHANGED",
        `the ${slot}/ folder of skill "${skill.name}" changed while it was being opened; retry.`,
        { name: skill.name, slot },
      );
    }
    const parts = readChunks(sandbox, readRequestFromFields(request.path, request), ctx.limits, context.signal);
    for await (const part of parts) {
      yield readPartMessage(part);
    }
  };
}
