import { ToolhostError } from "../../errors/toolhost-error.js";
import { createSandbox } from "../../sandbox/create-sandbox.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { openSkillSlot } from "../../skills/load/resolve-slot-folder.js";
import type { LoadedSkill, ResourceSlotName } from "../../skills/skill-types.js";

/**
 * openSlotSandbox is the read-only sandbox a skill's slot files are read through: its only root
 * is the slot folder's real path, as the kernel reports it for a descriptor opened relative to
 * the skill folder's own verified descriptor (so the slot is never looked up by name a second
 * time); it must lie strictly inside the skill folder's real path, which must lie in the skill
 * root. Every file is then opened and verified by that sandbox: `..`, absolute paths elsewhere,
 * links out of the slot, a slot swapped for a link mid-call, and files with several hard links
 * (unless allowed) are refused exactly as FileTools refuses them outside its roots. NOT_FOUND
 * when the skill has no such slot folder.
 */
export async function openSlotSandbox(
  skill: LoadedSkill,
  slot: ResourceSlotName,
  allowHardLinks: boolean,
): Promise<Sandbox> {
  const slotFolder = await openSkillSlot(skill.folder, skill.root, slot);
  if (slotFolder === undefined) {
    throw new ToolhostError(
      "NOT_FOUND",
      `skill "${skill.name}" has no ${slot}/ folder: ListSkillResources lists the files it has.`,
      { name: skill.name, slot },
    );
  }
  let sandbox: Sandbox;
  try {
    sandbox = await createSandbox([{ path: slotFolder.realPath, readOnly: true }], { readOnly: true, allowHardLinks });
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
  return sandbox;
}
