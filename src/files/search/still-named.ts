import { opendirSync, readlinkSync, type Dir } from "node:fs";

/**
 * FolderNames checks, for the JavaScript path of the match worker, that a file counted with one
 * link is still the entry `name` of its held folder: its kernel path must be the folder's path +
 * "/" + name (not " (deleted)", not moved elsewhere).
 *
 * Each check first waits for any unlink, link or rename under way in the folder: a getdents on
 * the folder takes its inode lock, which such a change holds for its whole length. The kernel
 * drops an unlinked name's link count before it removes the name, both inside that lock, so
 * without the barrier a count of 1 (the file's other name, outside) and the name still there
 * could be seen together, and the outside file read as the folder's.
 *
 * The folder is opened and read to its end once per run of files of the same folder (per
 * batch: folder descriptors are only stable within one); each check then costs one getdents
 * that finds the end (it still takes the lock) and one readlink, instead of an open, a 32 KB
 * read of entries and a close per file. Hand-written: Node has no call that takes the lock
 * without reading entries (native/fs-at/fs-at.c's folder_barrier does the same in C; the hard-link
 * rule it serves: docs/adr/0001-sandbox-verified-handles.md).
 */
export class FolderNames {
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
    } catch {
      return false;
    }
    // The barrier waited on this folder's lock: it must still be the one at the path the name is
    // checked against (another folder moved there would have its unlinks waited on by none).
    const at = readlinkSync(`/proc/self/fd/${dirFd}`);
    if ((at === "/" ? "" : at) !== this.#path) return false;
    return readlinkSync(`/proc/self/fd/${fd}`) === `${this.#path}/${name}`;
  }

  /** close closes the folder opened for the barrier (call at the end of every batch). */
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
      const dir = opendirSync(`/proc/self/fd/${dirFd}`, { bufferSize: 32 });
      this.#dir = dir;
      for (let i = 0; i < 1_000_000 && dir.readSync() !== null; i++); // to its end, once
      const path = readlinkSync(`/proc/self/fd/${dirFd}`);
      this.#path = path === "/" ? "" : path;
    } catch {
      this.close();
      this.#dirFd = dirFd; // unreadable: its files are skipped
    }
  }
}
