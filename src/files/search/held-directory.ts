import { constants, type Dirent } from "node:fs";
import { open, readdir, readlink, type FileHandle } from "node:fs/promises";
import { isInside } from "../../sandbox/root-containing.js";

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * HeldDirectory is a verified directory held open by descriptor, with a reference count (the
 * descriptor is closed with the last reference, so its number cannot be reused under a user):
 * a search's start folder (the walk worker opens everything below it through its descriptor),
 * the folders above it whose ignore files apply, and WatchFiles' folders.
 */
export class HeldDirectory {
  #refs = 1;

  private constructor(private readonly handle: FileHandle) {}

  /** fd is the descriptor the directory's entries are opened relative to. */
  get fd(): number {
    return this.handle.fd;
  }

  /**
   * openVerified opens a directory (an absolute real path, or /proc/self/fd/N/name below a held
   * directory) without following a final link, and keeps it only if the kernel's record of what
   * was opened lies inside one of the roots; undefined for a link, a non-directory, an entry gone
   * meanwhile or one outside.
   */
  static async openVerified(path: string, roots: readonly string[]): Promise<HeldDirectory | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(path, directoryFlags);
    } catch {
      return undefined;
    }
    try {
      const real = await readlink(`/proc/self/fd/${handle.fd}`);
      if (roots.some((root) => isInside(root, real))) return new HeldDirectory(handle);
    } catch {
      // no /proc: cannot verify, so do not use
    }
    await handle.close();
    return undefined;
  }

  /** openChild opens an entry of this directory as a verified directory. */
  openChild(name: string, roots: readonly string[]): Promise<HeldDirectory | undefined> {
    return HeldDirectory.openVerified(`/proc/self/fd/${this.fd}/${name}`, roots);
  }

  /** list reads the directory's entries through its descriptor, sorted by name. */
  async list(): Promise<Dirent[]> {
    const entries = await readdir(`/proc/self/fd/${this.fd}`, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** retain adds a reference (a batch in flight). */
  retain(): void {
    this.#refs++;
  }

  /** release drops a reference and closes the descriptor with the last one. */
  async release(): Promise<void> {
    if (--this.#refs === 0) await this.handle.close();
  }
}
