import type { Dirent } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { fileKindOf } from "../file-kind.js";
import type { DirectoryEntryValue } from "./list-types.js";

/**
 * describeEntry builds the DirectoryEntryValue of one directory entry. A symlink is followed only
 * when its real target lies inside the roots (its target's type, size, mode and time are then
 * reported, with symlink true); a link leading outside, or nowhere, is reported as a "symlink"
 * with its own mode and time, and nothing about its target.
 */
export async function describeEntry(
  sandbox: Sandbox,
  dirPath: string,
  dirent: Dirent,
  relativePath: string,
): Promise<DirectoryEntryValue | undefined> {
  const full = `${dirPath}/${dirent.name}`;
  const own = await lstat(full).catch(() => undefined);
  if (own === undefined) {
    return undefined; // removed while listing
  }
  const entry = { path: relativePath, name: dirent.name, symlink: own.isSymbolicLink() };
  let stats = own;
  if (own.isSymbolicLink()) {
    const target = await realpath(full).catch(() => undefined);
    const followed = target !== undefined && sandbox.contains(target) ? await stat(target).catch(() => undefined) : undefined;
    stats = followed ?? own;
  }
  const type = fileKindOf(stats);
  return {
    ...entry,
    type,
    size: type === "file" ? stats.size : 0,
    mode: stats.mode & 0o7777,
    modified: stats.mtime,
  };
}
