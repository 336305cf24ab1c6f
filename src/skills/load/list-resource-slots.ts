import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { childPath } from "../../sandbox/path-handle.js";
import { openSlotFolder } from "./resolve-slot-folder.js";
import { openSkillDir, readSkillDir, withSkillDir, type SkillDir } from "./skill-dir.js";
import { resourceSlotNames, type ResourceFile, type ResourceSlotData, type ResourceSlotName } from "../skill-types.js";

/** ResourceListOptions bound a listing of a skill's resource folders. */
export interface ResourceListOptions {
  /** Most files listed per skill; the rest are left out and `truncated` is set. */
  readonly maxFiles?: number;
  /** Deepest sub-directory level listed inside a slot. */
  readonly maxDepth?: number;
  /**
   * The skill root's real path, which a skill folder given by path must lie in; without it, the
   * skill folder's own real path is the limit (nothing above it is looked at anyway).
   */
  readonly root?: string | undefined;
  /** List files with several hard links (sandbox.allow_hard_links); left out by default, as they cannot be read. */
  readonly allowHardLinks?: boolean | undefined;
}

/** ResourceListing is the slots of one skill folder. */
export interface ResourceListing {
  /** One entry per slot folder that exists, in the order scripts, references, assets. */
  readonly slots: ResourceSlotData[];
  readonly truncated: boolean;
  /** Slots left out because their folder is a symlink that does not lead inside the skill folder. */
  readonly outside: ResourceSlotName[];
}

/**
 * listResourceSlots lists the regular files of a skill's scripts/, references/ and assets/
 * folders, with paths relative to the slot and "/" separators, sorted. `folder` is the skill
 * folder, by path (opened and verified inside options.root) or already held open.
 *
 * Every folder is listed through a verified descriptor and every entry looked at relative to it
 * (see skill-dir.ts), so a folder swapped for a link to outside mid-listing lists nothing from
 * outside. A slot folder must resolve strictly inside the skill folder's own real path (see
 * openSlotFolder); one that does not is left out and named in `outside`, so the loader can report
 * it. Sub-directories are descended into but never listed themselves. A symlink is listed only
 * when its target is a regular file inside the slot's own real folder, and a file with several
 * hard links only when they are allowed, because ReadSkillResource refuses anything else and a
 * listed file that cannot be read would be a broken promise.
 */
export async function listResourceSlots(
  folder: string | SkillDir,
  options: ResourceListOptions = {},
): Promise<ResourceListing> {
  if (typeof folder === "string") {
    const opened = await openSkillDir(folder, options.root);
    if (!("dir" in opened)) {
      return { slots: [], truncated: false, outside: [] };
    }
    return withSkillDir(opened.dir, (dir) => listResourceSlots(dir, options));
  }
  const budget = { left: options.maxFiles ?? 10_000, truncated: false };
  const slots: ResourceSlotData[] = [];
  const outside: ResourceSlotName[] = [];
  for (const name of resourceSlotNames) {
    const found = await openSlotFolder(folder, name);
    if (found.kind === "outside") {
      outside.push(name);
    }
    if (found.kind !== "folder") {
      continue;
    }
    const files: ResourceFile[] = [];
    await withSkillDir(found.dir, (slot) =>
      walk(slot, "", files, new Set([slot.realPath]), {
        slotReal: slot.realPath,
        depth: 0,
        maxDepth: options.maxDepth ?? 8,
        budget,
        allowHardLinks: options.allowHardLinks === true,
      }),
    );
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    slots.push({ name, files });
  }
  return { slots, truncated: budget.truncated, outside };
}

interface WalkState {
  readonly slotReal: string;
  readonly depth: number;
  readonly maxDepth: number;
  readonly budget: { left: number; truncated: boolean };
  readonly allowHardLinks: boolean;
}

async function walk(
  dir: SkillDir,
  prefix: string,
  files: ResourceFile[],
  seen: Set<string>,
  state: WalkState,
): Promise<void> {
  let entries;
  try {
    entries = await readSkillDir(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.isSymbolicLink() && !entry.isDirectory() && !entry.isFile()) {
      continue;
    }
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isFile()) {
      // A plain file of the verified folder: its own lstat, relative to the descriptor, is enough.
      const info = await lstat(childPath(dir.path, entry.name)).catch(() => undefined);
      if (!addFile(files, relative, info, state)) return;
      continue;
    }
    // A link or folder: opened relative to the verified folder, with O_PATH (no effect on what it finds), and kept
    // only inside the slot's real folder: what is listed is what ReadSkillResource will read.
    const opened = await openSkillDir(childPath(dir.path, entry.name), state.slotReal);
    if ("dir" in opened) {
      await withSkillDir(opened.dir, async (sub) => {
        if (state.depth < state.maxDepth && !seen.has(sub.realPath)) {
          seen.add(sub.realPath);
          await walk(sub, relative, files, seen, { ...state, depth: state.depth + 1 });
        }
      });
      continue;
    }
    if (!addFile(files, relative, "other" in opened ? opened.other : undefined, state)) return;
  }
}

/** addFile lists a regular file (one link, unless allowed) within the budget; false once the budget is spent. */
function addFile(files: ResourceFile[], relative: string, info: Stats | undefined, state: WalkState): boolean {
  if (info === undefined || !info.isFile() || (info.nlink > 1 && !state.allowHardLinks)) {
    return true;
  }
  if (state.budget.left <= 0) {
    state.budget.truncated = true;
    return false;
  }
  state.budget.left -= 1;
  files.push({ path: relative, size: info.size });
  return true;
}
