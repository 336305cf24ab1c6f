import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { waitForFolderChanges } from "./folder-barrier.js";
import { O_PATH } from "./path-handle.js";
import { procFdPath } from "./proc-fd-path.js";
import { fsAt } from "./native/fs-at.js";
import { hardLinkError, replacedError } from "./sandbox-errors.js";
import { handleRealPathSync } from "./verify-handle.js";

/**
 * confirmOnlyName checks that the file open as `fd` (one link, `opened`, whose /proc link read
 * `named`) has that one name in the roots and is not losing it to an unlink under way. Throws
 * FILE_CHANGED or HARD_LINK_REFUSED otherwise.
 *
 * Why: the kernel lowers an unlinked name's link count before it removes the name, both under
 * the lock of the folder that holds the name, so a file with two names (one outside the roots)
 * whose in-root name is being removed shows one link AND a live in-root name. A barrier on that
 * folder's lock (waitForFolderChanges) lets such a removal finish; the name looked at after it is
 * final. The barrier must be on the very folder holding the name: a folder found again by its
 * path can be another one by then (renamed d -> e and back, or exchanged), and its lock then
 * waits for nothing. The kernel has no call that opens a file's parent, so this works the other
 * way round:
 *  1. the folder at dirname(named) is opened (O_PATH, not through a final link) and must be at
 *     that very path (no link swapped in above it): X;
 *  2. the file's name is looked up IN X (/proc/self/fd/X/name, resolved by the kernel from the
 *     held folder): that name E is then certainly one of X's entries, and it must be the same
 *     inode as `fd`, with one link (the count, taken after E was found in X);
 *  3. the barrier on X itself (through /proc/self/fd/X): an unlink of E under way at the count
 *     holds X's lock, so it is finished when the barrier returns;
 *  4. E's name must still be `named` and the count one, and X must still be at dirname(named).
 * If E had been removed at the count, 4 sees it deleted. If it was live and the only undecremented
 * name at the count, the file had no other lasting name then, wherever it is read from later.
 * E moved to another folder between 2 and the count, that folder then put at X's path for 4,
 * is caught after the count: E's connectable file handle (Linux 6.13+, names its parent; compared
 * with the handle of X's entry `name`, fs-at.c sameEntryAndFolder) must show it in X. A name being
 * unlinked at the count is pinned to its folder from then on (the unlink holds that folder's lock,
 * then the name is gone), so E in X after the count was not being unlinked elsewhere at the count.
 * Where the filesystem gives no such handles (overlayfs, a container's usual root; tmpfs) or
 * without the addon, that one interleaving (two renames, each in a window of microseconds, while
 * an unlink runs) stays open.
 *
 * A folder the server may search but not read (mode 0311) gets its barrier from a lookup of a
 * name it cannot hold (waitByLookup). Hand-written: no library does this.
 */
export function confirmOnlyName(fd: number, opened: Stats, named: string, clientPath: string): void {
  const folderPath = dirname(named);
  const name = basename(named);
  let folder: number;
  try {
    // O_PATH: opening it has no effect on the folder (no FUSE opendir); checked before any use.
    folder = openSync(folderPath, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    throw replacedError(clientPath); // gone, moved, or a link now: not the folder the name was in
  }
  let entry = -1;
  try {
    if (handleRealPathSync(folder) !== folderPath) {
      throw replacedError(clientPath); // a folder above it was swapped for a link meanwhile
    }
    const held = procFdPath(folder);
    try {
      entry = openSync(`${held}/${name}`, O_PATH | constants.O_NOFOLLOW);
    } catch {
      throw replacedError(clientPath);
    }
    const found = fstatSync(entry);
    if (found.dev !== opened.dev || found.ino !== opened.ino) {
      throw replacedError(clientPath);
    }
    checkOneLink(found.nlink, clientPath);
    // After the count, E must be in X itself (connectable handles, where the kernel has them):
    // a name being unlinked cannot be renamed, so E in X now means its name was in X at the count.
    if (fsAt?.sameEntryAndFolder(`${held}/${name}`, procFdPath(entry)) === 0) {
      throw replacedError(clientPath);
    }
    if (!waitForFolderChanges(held) && !waitByLookup(held)) {
      throw replacedError(clientPath);
    }
    if (handleRealPathSync(entry) !== named || handleRealPathSync(folder) !== folderPath) {
      throw replacedError(clientPath);
    }
    checkOneLink(fstatSync(entry).nlink, clientPath);
  } finally {
    if (entry >= 0) closeSync(entry);
    closeSync(folder);
  }
}

/**
 * waitByLookup is the barrier for a folder the server may search but not read (mode 0311, or
 * 0711 and another owner's), where getdents is refused: it looks up a name that cannot be in the
 * folder's cache (random, 128 bits), which the kernel does under the folder's lock (shared, so
 * it waits for an unlink under way, as getdents does). True once the name was looked up and is
 * not there. It leaves one negative cache entry per such read, which the kernel reclaims.
 */
function waitByLookup(held: string): boolean {
  try {
    return (
      lstatSync(`${held}/.toolhost-barrier-${randomBytes(16).toString("hex")}`, { throwIfNoEntry: false }) === undefined
    );
  } catch {
    return false;
  }
}

/** checkOneLink refuses a count other than one: none is a file removed or replaced since, more a hard link. */
function checkOneLink(links: number, clientPath: string): void {
  if (links === 0) throw replacedError(clientPath);
  if (links !== 1) throw hardLinkError(clientPath, links);
}
