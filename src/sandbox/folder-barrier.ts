import { opendirSync } from "node:fs";
import { fsAt } from "./native/fs-at.js";

/**
 * waitForFolderChanges waits for any unlink, link or rename under way in the folder at `path`:
 * it reads one entry of the folder (getdents), which takes the folder's inode lock, held by such
 * a change for its whole length. Returns false where the folder cannot be read (gone, EACCES).
 *
 * Why: the kernel lowers an unlinked name's link count before it removes the name, both inside
 * that lock, so a file with two names (one outside the roots) whose in-root name is being
 * removed can be seen with one link AND a live in-root name. A check of the name made after
 * this barrier sees the removal finished. Hand-written: Node has no call that takes the lock
 * without reading entries; the native addon's folderBarrier (native/fs-at/fs-at.c) reads none and
 * costs ~2 us where Node's opendir costs 12-60 us, so it is used when loaded.
 */
export function waitForFolderChanges(path: string): boolean {
  const native = fsAt?.folderBarrier(path);
  if (typeof native === "boolean") return native;
  try {
    const folder = opendirSync(path, { bufferSize: 1 });
    try {
      folder.readSync();
    } finally {
      folder.closeSync();
    }
    return true;
  } catch {
    return false;
  }
}
