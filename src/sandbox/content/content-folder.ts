import { opendirSync, readlinkSync, type Dir } from "node:fs";
import { waitForFolderChanges } from "../folder-barrier.js";
import { procFdPath } from "../proc-fd-path.js";

/**
 * namedInHeldFolder is rule 4 of the content path (open-content.ts) for one file opened as the
 * entry `name` of a folder the caller holds (`folderFd`): after a barrier on that very folder (an
 * unlink, link or rename under way in it holds its lock, see ContentFolder), the file's kernel
 * path must be the folder's kernel path, as it is then, + "/" + name. The folder is held, so the
 * barrier is on the folder the name was in, whatever path it has by then; a name moved to another
 * folder, or removed, fails the compare. Undefined when the folder cannot be read for the barrier
 * (mode 0311): the caller then looks the name up again by path (confirmOnlyName).
 */
export function namedInHeldFolder(folderFd: number, name: string, fd: number): boolean | undefined {
  if (name.endsWith(" (deleted)")) return false; // cannot be told from the kernel's mark (see ContentFolder)
  if (!waitForFolderChanges(procFdPath(folderFd))) return undefined;
  try {
    const at = readlinkSync(procFdPath(folderFd));
    return readlinkSync(procFdPath(fd)) === `${at === "/" ? "" : at}/${name}`;
  } catch {
    return false;
  }
}

/**
 * ContentFolder is rule 4 of the content path (open-content.ts) for a run of files of one held
 * folder, as a search's match worker reads them without the native addon: that a file counted
 * with one link is still the entry `name` of the held folder, its kernel path the folder's path +
 * "/" + name (not " (deleted)", not moved elsewhere), looked at after a barrier on the folder.
 *
 * The barrier: a getdents on the folder takes its inode lock, which an unlink, link or rename in
 * it holds for its whole length. The kernel drops an unlinked name's link count before it removes
 * the name, both inside that lock, so without the barrier a count of 1 (the file's other name,
 * outside) and the name still there could be seen together, and the outside file read as the
 * folder's. The folder is opened and read to its end once per run of its files (folder
 * descriptors are stable within one batch); each check then costs one getdents that finds the
 * end (it still takes the lock) and two readlinks, instead of an open, a 32 KB read of entries
 * and a close per file. Hand-written: Node has no call that takes the lock without reading
 * entries (native/fs-at/fs-at.c's folder_barrier does the same in C).
 */
export class ContentFolder {
  #dirFd = -1;
  #dir: Dir | undefined;
  #path = "";

  /** stillNamed says whether `fd` is the entry `name` of the held folder `dirFd`, after the barrier. */
  stillNamed(dirFd: number, name: string, fd: number): boolean {
    // A name ending in " (deleted)" cannot be told from the kernel's mark of a removed one (a
    // link held as "x (deleted)", renamed to "x" and removed, reads "<folder>/x (deleted)"):
    // such files are not read.
    if (name.endsWith(" (deleted)")) return false;
    if (dirFd !== this.#dirFd) this.#open(dirFd);
    const dir = this.#dir;
    if (dir === undefined) return false;
    try {
      dir.readSync(); // the barrier: normally at the end, so no entry is read
      // The barrier waited on this folder's lock: it must still be the one at the path the name
      // is checked against (another folder moved there would have its unlinks waited on by none).
      const at = readlinkSync(procFdPath(dirFd));
      if ((at === "/" ? "" : at) !== this.#path) return false;
      return readlinkSync(procFdPath(fd)) === `${this.#path}/${name}`;
    } catch {
      return false;
    }
  }

  /** close closes the folder opened for the barrier (call at the end of every run of files). */
  close(): void {
    try {
      this.#dir?.closeSync();
    } catch {
      // already closed
    }
    this.#dir = undefined;
    this.#dirFd = -1;
  }

  #open(dirFd: number): void {
    this.close();
    this.#dirFd = dirFd;
    try {
      const dir = opendirSync(procFdPath(dirFd), { bufferSize: 32 });
      this.#dir = dir;
      for (let i = 0; i < 1_000_000 && dir.readSync() !== null; i++); // to its end, once
      const path = readlinkSync(procFdPath(dirFd));
      this.#path = path === "/" ? "" : path;
    } catch {
      this.close();
      this.#dirFd = dirFd; // unreadable: its files are not read
    }
  }
}
