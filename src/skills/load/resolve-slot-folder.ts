import { childPath } from "../../sandbox/path-handle.js";
import { openSkillDir, withSkillDir, type SkillDir } from "./skill-dir.js";
import type { ResourceSlotName } from "../skill-types.js";

/**
 * SlotFolder is what a slot name in a skill folder leads to: a folder to serve (held open and
 * verified; the caller closes it), nothing, or a symlink that leaves the skill folder and must
 * not be served.
 */
export type SlotFolder =
  | { readonly kind: "folder"; readonly dir: SkillDir }
  | { readonly kind: "missing" }
  | { readonly kind: "outside" };

/**
 * openSlotFolder opens the slot folder `slot` of a verified skill folder, relative to the skill
 * folder's descriptor, and classifies it by the opened descriptor's real path.
 *
 * The limit is the skill folder's own real path, not the skill root: a slot is a skill's own
 * files, so `assets -> ../other-skill` or `references -> ..` would hand out another skill's
 * files or the whole root. A link to a folder strictly inside the skill folder is fine; a link to
 * the skill folder itself is refused too, because it would serve SKILL.md and everything else
 * in the folder as a slot.
 */
export async function openSlotFolder(folder: SkillDir, slot: ResourceSlotName): Promise<SlotFolder> {
  const opened = await openSkillDir(childPath(folder.path, slot), folder.realPath, true);
  if ("dir" in opened) return { kind: "folder", dir: opened.dir };
  return "outside" in opened ? { kind: "outside" } : { kind: "missing" };
}

/**
 * openSkillSlot opens a skill's slot folder for serving: the skill folder (by its path, verified
 * inside the skill root `root`), then the slot relative to it. Undefined when the slot is
 * missing, not a folder, or does not lead strictly inside the skill folder. The caller closes
 * the folder returned; its realPath is what ReadSkillResource sandboxes reads to.
 */
export async function openSkillSlot(
  folder: string,
  root: string,
  slot: ResourceSlotName,
): Promise<SkillDir | undefined> {
  const skill = await openSkillDir(folder, root);
  if (!("dir" in skill)) {
    return undefined;
  }
  return withSkillDir(skill.dir, async (dir) => {
    const found = await openSlotFolder(dir, slot);
    return found.kind === "folder" ? found.dir : undefined;
  });
}
