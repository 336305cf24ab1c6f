import { opendirSync, readlinkSync } from "node:fs";

/**
 * stillNamed says whether the open file `fd`, counted with one link just before, is the entry
 * `name` of the held folder `dirFd`: its kernel path must be the folder's path + "/" + name (not
 * " (deleted)", not moved elsewhere).
 *
 * First a barrier: the folder is read (getdents), which takes the folder's inode lock and so
 * waits for an unlink, link or rename in it that is under way. The kernel drops an unlinked
 * name's link count before it removes the name, both inside that lock: without the barrier a
 * count of 1 (the file's other name, outside) and the name still there could be seen together,
 * and the outside file read as the folder's. Hand-written: Node has no call that takes the lock
 * without reading entries (native/fs-at/fs-at.c's folder_barrier reads none).
 */
export function stillNamed(dirFd: number, name: string, fd: number): boolean {
  const folder = opendirSync(`/proc/self/fd/${dirFd}`, { bufferSize: 1 });
  try {
    folder.readSync();
  } finally {
    folder.closeSync();
  }
  const folderPath = readlinkSync(`/proc/self/fd/${dirFd}`);
  return readlinkSync(`/proc/self/fd/${fd}`) === `${folderPath === "/" ? "" : folderPath}/${name}`;
}
