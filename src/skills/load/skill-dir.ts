import { readdir } from "node:fs/promises";
import type { Dirent, Stats } from "node:fs";
import { childPath, openPathHandle } from "../../sandbox/path-handle.js";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { isInside } from "./is-inside.js";

/**
 * SkillDir is a folder of a skill root held open by an O_PATH descriptor whose real path the
 * kernel reported inside a boundary (the skill root, or a skill folder for its slots). `path`
 * (/proc/self/fd/N) names it for listing and for opening its entries, so a folder swapped for a
 * link after it was verified cannot redirect anything done through it.
 */
export interface SkillDir {
  readonly path: string;
  readonly realPath: string;
  close(): Promise<void>;
}

/**
 * OpenedSkillDir is a verified folder, or why there is none: `other` when nothing is there or
 * it is not a folder (with the fstat of what is there, inside the boundary, when something is),
 * `outside` when the entry leads outside the boundary (`directory` says whether to a folder).
 */
export type OpenedSkillDir =
  | { readonly dir: SkillDir }
  | { readonly other: Stats | undefined }
  | { readonly outside: true; readonly directory: boolean };

/**
 * openSkillDir opens the entry at `path` (a plain path, or `childPath(parent.path, name)` of a
 * verified parent) with O_PATH, following links, and keeps it as a folder only when its real
 * path, as the kernel reports it for the descriptor, lies inside `boundary` (when `strictly`, not
 * the boundary itself) and fstat says directory. Opening with O_PATH has no effect on what is
 * opened, so a link leading to a device or FIFO is harmless.
 */
export async function openSkillDir(
  path: string,
  boundary: string | undefined,
  strictly = false,
): Promise<OpenedSkillDir> {
  const handle = await openPathHandle(path, { follow: true }).catch(() => undefined);
  if (handle === undefined) {
    return { other: undefined };
  }
  let keep = false;
  try {
    const real = await handleRealPath(handle.fd);
    const stats = await handle.stat();
    if (typeof real !== "string") {
      return { other: undefined };
    }
    if (boundary !== undefined && (!isInside(boundary, real) || (strictly && real === boundary))) {
      return { outside: true, directory: stats.isDirectory() };
    }
    if (!stats.isDirectory()) {
      return { other: stats };
    }
    keep = true;
    return { dir: { path: procFdPath(handle.fd), realPath: real, close: () => handle.close() } };
  } finally {
    if (!keep) await handle.close();
  }
}

/** openSkillSubdir opens the entry `name` of a verified folder as a folder, within `boundary`. */
export function openSkillSubdir(
  parent: SkillDir,
  name: string,
  boundary: string | undefined,
  strictly = false,
): Promise<OpenedSkillDir> {
  return openSkillDir(childPath(parent.path, name), boundary, strictly);
}

/** readSkillDir lists a verified folder, sorted by name (UTF-16 code units). */
export async function readSkillDir(dir: SkillDir): Promise<Dirent[]> {
  const entries = await readdir(dir.path, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** withSkillDir runs `fn` on a verified folder and closes it afterwards, whatever happens. */
export async function withSkillDir<T>(dir: SkillDir, fn: (dir: SkillDir) => Promise<T>): Promise<T> {
  try {
    return await fn(dir);
  } finally {
    await dir.close();
  }
}
