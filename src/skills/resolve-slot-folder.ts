import { lstat, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isInside } from "./is-inside.js";
import type { ResourceSlotName } from "./skill-types.js";

/**
 * SlotFolder is what a slot name in a skill folder leads to: a folder to serve (by its real
 * path), nothing, or a symlink that leaves the skill folder and must not be served.
 */
export type SlotFolder = { readonly kind: "folder"; readonly real: string } | { readonly kind: "missing" } | { readonly kind: "outside" };

/**
 * slotFolderOf classifies the slot folder `slot` of the skill folder whose real path is
 * `folderReal`.
 *
 * The limit is the skill folder's own real path, not the skill root: a slot is a skill's own
 * files, so `assets -> ../other-skill` or `references -> ..` would hand out another skill's
 * files or the whole root. A link to a folder strictly inside the skill folder is fine; a link to
 * the skill folder itself is refused too, because it would serve SKILL.md and everything else
 * in the folder as a slot.
 */
export async function slotFolderOf(folderReal: string, slot: ResourceSlotName): Promise<SlotFolder> {
  const path = join(folderReal, slot);
  let real: string;
  try {
    // One lstat in the common case: a plain directory under a real folder is its own real path.
    const link = await lstat(path);
    if (link.isDirectory()) {
      return { kind: "folder", real: path };
    }
    if (!link.isSymbolicLink()) {
      return { kind: "missing" };
    }
    real = await realpath(path);
  } catch {
    // Missing, or a dangling link: there is nothing to serve and no target to judge.
    return { kind: "missing" };
  }
  if (real === folderReal || !isInside(folderReal, real)) {
    return { kind: "outside" };
  }
  const info = await stat(real).catch(() => undefined);
  return info?.isDirectory() === true ? { kind: "folder", real } : { kind: "missing" };
}

/**
 * resolveSlotFolder returns the real path of a skill's slot folder, or undefined when it is
 * missing, not a directory, or a symlink that does not lead inside the skill folder's own real
 * path. ReadSkillResource sandboxes reads to exactly this path.
 */
export async function resolveSlotFolder(folder: string, slot: ResourceSlotName): Promise<string | undefined> {
  const folderReal = await realpath(folder).catch(() => undefined);
  if (folderReal === undefined) {
    return undefined;
  }
  const found = await slotFolderOf(folderReal, slot);
  return found.kind === "folder" ? found.real : undefined;
}
