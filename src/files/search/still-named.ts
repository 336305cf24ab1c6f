import { readlinkSync } from "node:fs";
import { waitForFolderChanges } from "../../sandbox/folder-barrier.js";

/**
 * stillNamed says whether the open file `fd`, counted with one link just before, is the entry
 * `name` of the held folder `dirFd`: its kernel path must be the folder's path + "/" + name (not
 * " (deleted)", not moved elsewhere), looked at after waitForFolderChanges (an unlink under way
 * in the folder could otherwise show one link and a live name together).
 */
export function stillNamed(dirFd: number, name: string, fd: number): boolean {
  if (!waitForFolderChanges(`/proc/self/fd/${dirFd}`)) return false;
  const folderPath = readlinkSync(`/proc/self/fd/${dirFd}`);
  return readlinkSync(`/proc/self/fd/${fd}`) === `${folderPath === "/" ? "" : folderPath}/${name}`;
}
