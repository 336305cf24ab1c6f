import { lstat, open, opendir, rmdir, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { identityOf } from "./staging-journal.js";
import { directoryFlags, noteFailure, type Sweep } from "./sweep-state.js";

/**
 * removeStagingFolder removes the folder `name` of the held directory `base` (real path `real`,
 * `depth` levels below its root) with everything in it: it is opened O_DIRECTORY|O_NOFOLLOW
 * relative to `base` and kept only if the kernel reports it at `real` (a link or another folder
 * swapped in is not entered), its entries are unlinked relative to its own descriptor (a link or
 * a hard link loses only its name here, a FIFO or device is never opened), its sub-folders
 * removed the same way at any depth (one descriptor per level, half of what the copy that built
 * the tree held), and then it is removed as an empty folder of `base`. With `id`, the opened
 * folder must be that device and inode (the journal's record). True when it is gone; otherwise
 * the failures are in the report and what is left keeps its record, for the next sweep.
 */
export async function removeStagingFolder(
  sweep: Sweep,
  base: string,
  name: string,
  real: string,
  id?: string,
): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path.join(base, name), directoryFlags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ELOOP" && code !== "ENOTDIR") noteFailure(sweep.report, real, err); // a swapped-in link: not ours
    return false;
  }
  let emptied = true;
  try {
    const actual = await handleRealPath(handle.fd);
    if (actual !== undefined && actual !== real) return false; // moved or swapped since it was listed
    if (id !== undefined && (await identityOf(handle.fd)) !== id) return false; // not the folder recorded
    // A copy with keep_mode gives its folders their modes (0500, say): ours to empty all the same.
    const mode = (await handle.stat()).mode & 0o7777;
    if ((mode & 0o700) !== 0o700) await handle.chmod(mode | 0o700).catch(() => undefined);
    const held = actual === undefined ? real : procFdPath(handle.fd);
    const names: string[] = [];
    for await (const entry of await opendir(held)) names.push(entry.name);
    for (const child of names) {
      const at = path.join(held, child);
      const childReal = path.join(real, child);
      try {
        const stats = await lstat(at);
        if (!stats.isDirectory()) {
          await unlink(at);
        } else if (sweep.readOnly.has(childReal)) {
          emptied = false; // a read-only root nested here: not the sweep's to touch
        } else {
          emptied = (await removeStagingFolder(sweep, held, child, childReal)) && emptied;
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") emptied = false;
        noteFailure(sweep.report, childReal, err);
      }
    }
  } catch (err) {
    noteFailure(sweep.report, real, err);
    return false;
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (!emptied) return false;
  try {
    await rmdir(path.join(base, name));
    return true;
  } catch (err) {
    noteFailure(sweep.report, real, err);
    return false;
  }
}
