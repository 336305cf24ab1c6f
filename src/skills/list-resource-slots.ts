import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isInside } from "./is-inside.js";
import { slotFolderOf } from "./resolve-slot-folder.js";
import { resourceSlotNames, type ResourceFile, type ResourceSlotData, type ResourceSlotName } from "./skill-types.js";

/** ResourceListOptions bound a listing of a skill's resource folders. */
export interface ResourceListOptions {
  /** Most files listed per skill; the rest are left out and `truncated` is set. */
  readonly maxFiles?: number;
  /** Deepest sub-directory level listed inside a slot. */
  readonly maxDepth?: number;
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
 * folders, with paths relative to the slot and "/" separators, sorted.
 *
 * A slot folder must resolve inside the skill folder's own real path (see slotFolderOf); one
 * that does not is left out and named in `outside`, so the loader can report it. Sub-directories
 * are descended into but never listed themselves (they are not files a client can read). A
 * symlink is listed only when its target is a regular file inside the slot's own real folder,
 * because ReadSkillResource sandboxes reads to exactly that folder and a listed file that
 * cannot be read would be a broken promise.
 */
export async function listResourceSlots(folder: string, options: ResourceListOptions = {}): Promise<ResourceListing> {
  const budget = { left: options.maxFiles ?? 10_000, truncated: false };
  const slots: ResourceSlotData[] = [];
  const outside: ResourceSlotName[] = [];
  const folderReal = await realpath(folder).catch(() => undefined);
  if (folderReal === undefined) {
    return { slots, truncated: false, outside };
  }
  for (const name of resourceSlotNames) {
    const found = await slotFolderOf(folderReal, name);
    if (found.kind === "outside") {
      outside.push(name);
    }
    if (found.kind !== "folder") {
      continue;
    }
    const slotReal = found.real;
    const files: ResourceFile[] = [];
    await walk(slotReal, "", files, new Set([slotReal]), { slotReal, depth: 0, maxDepth: options.maxDepth ?? 8, budget });
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
}

async function walk(dir: string, prefix: string, files: ResourceFile[], seen: Set<string>, state: WalkState): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    let real = path;
    if (entry.isSymbolicLink()) {
      real = await realpath(path).catch(() => "");
      if (real === "" || !isInside(state.slotReal, real)) {
        continue;
      }
    }
    const info = entry.isSymbolicLink() ? await stat(real).catch(() => undefined) : entry;
    if (info === undefined) {
      continue;
    }
    if (info.isDirectory()) {
      if (state.depth < state.maxDepth && !seen.has(real)) {
        seen.add(real);
        await walk(real, relative, files, seen, { ...state, depth: state.depth + 1 });
      }
      continue;
    }
    if (!info.isFile()) {
      continue;
    }
    if (state.budget.left <= 0) {
      state.budget.truncated = true;
      return;
    }
    state.budget.left -= 1;
    const size = (await stat(real).catch(() => undefined))?.size ?? 0;
    files.push({ path: relative, size });
  }
}
