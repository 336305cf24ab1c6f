import type { Dirent } from "node:fs";
import { lstat } from "node:fs/promises";
import { type EntryStats, lstatEntrySync } from "../../sandbox/lstat-entry.js";
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
 * re-joined name; on the calling thread when the directory is local (lstatHere). A symlink is followed only when its real target lies inside the roots (its
 * target's type, size, mode and time are then reported, with symlink true), judged on a handle to
 * the target (statLinkTarget); a link leading outside, or nowhere, is reported as a "symlink"
 * with its own mode and time, and nothing about its target. A file with other hard links has its
 * size, mode and time withheld (entryMetadata).
 */
export function describeEntry(
  sandbox: Sandbox,
  dir: OpenedDirectory,
  dirent: Dirent,
  relativePath: string,
): EntryDescription {
  const full = childPath(dir.path, dirent.name);
  const own = lstatHere(dir, dirent.name);
  if (own === elsewhere) {
    return lstat(full).then(
      (stats) => describeStats(sandbox, full, dirent.name, relativePath, stats),
      () => undefined,
    );
  }
  return describeStats(sandbox, full, dirent.name, relativePath, own);
}

/**
 * EntryDescription is an entry's value, or undefined when it was removed while listing; a promise
 * only where it needed the thread pool (a symlink's target, an entry of a remote folder or a mount
 * point), so that the usual entry of a local folder costs no promise and no microtask.
 */
export type EntryDescription = DirectoryEntryValue | undefined | Promise<DirectoryEntryValue | undefined>;

function describeStats(
  sandbox: Sandbox,
  full: string,
  name: string,
  relativePath: string,
  own: EntryStats | undefined,
): EntryDescription {
  if (own === undefined) {
    return undefined; // removed while listing
  }
  if (!own.isSymbolicLink()) {
    // One object literal, no spread (1,000 of them per page).
    const metadata = entryMetadata(own, sandbox.allowHardLinks);
    return {
      path: relativePath,
      name,
      symlink: false,
      type: fileKindOf(own),
      size: metadata.size,
      mode: metadata.mode,
      modified: metadata.modified,
      hardLinked: metadata.hardLinked,
    };
  }
  return statLinkTarget(sandbox.roots, full).then((target) => {
    const stats = target ?? own;
    return {
      path: relativePath,
      name,
      symlink: true,
      type: fileKindOf(stats),
      ...entryMetadata(stats, sandbox.allowHardLinks),
    };
  });
}

/**
 * describeEntryName is describeEntry without the entry's own lstat, for a names-only listing:
 * the kind comes from the directory entry itself, and size, mode, time and the hard-link count
 * are not looked up (0, 0, undefined, false). A symlink is still judged on a handle to its
 * target, so its kind is its target's only when that is inside the roots.
 */
export function describeEntryName(
  sandbox: Sandbox,
  dir: OpenedDirectory,
  dirent: Dirent,
  relativePath: string,
): EntryDescription {
  if (!dirent.isSymbolicLink()) {
    return nameOnly(relativePath, dirent.name, false, direntKindOf(dirent));
  }
  return statLinkTarget(sandbox.roots, childPath(dir.path, dirent.name)).then((target) =>
    nameOnly(relativePath, dirent.name, true, target === undefined ? "symlink" : fileKindOf(target)),
  );
}

/** nameOnly is a names-only entry: one object literal, no spread (1,000 of them per page). */
function nameOnly(path: string, name: string, symlink: boolean, type: FileKind): DirectoryEntryValue {
  return { path, name, symlink, type, size: 0, mode: 0, modified: undefined, hardLinked: false };
}

/** direntKindOf is fileKindOf for a directory entry that is not a symlink. */
function direntKindOf(dirent: Dirent): FileKind {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  return "other";
}

/** elsewhere is lstatHere's answer for an entry whose lstat goes to the thread pool. */
const elsewhere = Symbol("elsewhere");

/**
 * lstatHere is the lstat of the entry `name` of `dir` made on the calling thread (lstatEntrySync:
 * relative to its descriptor), undefined when it is gone, or `elsewhere` when it must not be:
 * only in a local directory (sync-io-policy.ts: a dentry-cache lookup costs less than a
 * thread-pool round trip), and not for a mount point, whose lookup enters another filesystem.
 */
function lstatHere(dir: OpenedDirectory, name: string): EntryStats | undefined | typeof elsewhere {
  if (!dir.local || isMountPoint(`${dir.realPath === "/" ? "" : dir.realPath}/${name}`)) {
    return elsewhere;
  }
  return lstatEntrySync(dir, name);
}
