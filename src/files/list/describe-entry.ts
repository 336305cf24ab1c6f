import type { Dirent } from "node:fs";
import { lstatSync, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { isMountPoint } from "../../sandbox/mount-points.js";
import type { OpenedDirectory } from "../../sandbox/open-directory.js";
import { childPath } from "../../sandbox/path-handle.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { statLinkTarget } from "../../sandbox/stat-link-target.js";
import { entryMetadata } from "../entry-metadata.js";
import { fileKindOf } from "../file-kind.js";
import type { DirectoryEntryValue } from "./list-types.js";
import type { FileKind } from "../file-kind.js";

/**
 * describeEntry builds the DirectoryEntryValue of one entry of a verified directory, held as
 * `dir.path` (/proc/self/fd/N): the entry is looked at relative to that descriptor, never by a
 * re-joined name; on the calling thread when the directory is local (lstatOf). A symlink is followed only when its real target lies inside the roots (its
 * target's type, size, mode and time are then reported, with symlink true), judged on a handle to
 * the target (statLinkTarget); a link leading outside, or nowhere, is reported as a "symlink"
 * with its own mode and time, and nothing about its target. A file with other hard links has its
 * size, mode and time withheld (entryMetadata).
 */
export async function describeEntry(
  sandbox: Sandbox,
  dir: OpenedDirectory,
  dirent: Dirent,
  relativePath: string,
): Promise<DirectoryEntryValue | undefined> {
  const full = childPath(dir.path, dirent.name);
  const own = await lstatOf(dir, dirent.name, full);
  if (own === undefined) {
    return undefined; // removed while listing
  }
  const entry = { path: relativePath, name: dirent.name, symlink: own.isSymbolicLink() };
  const stats = own.isSymbolicLink() ? ((await statLinkTarget(sandbox.roots, full)) ?? own) : own;
  return { ...entry, type: fileKindOf(stats), ...entryMetadata(stats, sandbox.allowHardLinks) };
}

/**
 * describeEntryName is describeEntry without the entry's own lstat, for a names-only listing:
 * the kind comes from the directory entry itself, and size, mode, time and the hard-link count
 * are not looked up (0, 0, undefined, false). A symlink is still judged on a handle to its
 * target, so its kind is its target's only when that is inside the roots.
 */
export async function describeEntryName(
  sandbox: Sandbox,
  dir: OpenedDirectory,
  dirent: Dirent,
  relativePath: string,
): Promise<DirectoryEntryValue> {
  const entry = { path: relativePath, name: dirent.name, size: 0, mode: 0, modified: undefined, hardLinked: false };
  if (!dirent.isSymbolicLink()) {
    return { ...entry, symlink: false, type: direntKindOf(dirent) };
  }
  const target = await statLinkTarget(sandbox.roots, childPath(dir.path, dirent.name));
  return { ...entry, symlink: true, type: target === undefined ? "symlink" : fileKindOf(target) };
}

/** direntKindOf is fileKindOf for a directory entry that is not a symlink. */
function direntKindOf(dirent: Dirent): FileKind {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  return "other";
}

/**
 * lstatOf is the lstat of the entry `name` of `dir` (as `full`), undefined when it is gone. In a
 * local directory it is made on the calling thread (sync-io-policy.ts: a dentry-cache lookup
 * costs less than a thread-pool round trip), unless the entry is a mount point, whose lookup
 * enters another filesystem.
 */
async function lstatOf(dir: OpenedDirectory, name: string, full: string): Promise<Stats | undefined> {
  if (dir.local && !isMountPoint(`${dir.realPath === "/" ? "" : dir.realPath}/${name}`)) {
    try {
      return lstatSync(full);
    } catch {
      return undefined;
    }
  }
  return await lstat(full).catch(() => undefined);
}
