import { fstatSync, type Stats } from "node:fs";
import { errnoCode, fsError } from "./fs-error.js";
import { openPath, type PathHandle } from "./path-handle.js";
import type { Resolution } from "./resolve-in-roots.js";
import { rootContaining } from "./root-containing.js";
import type { SandboxRoot, VerifiedEntry } from "./sandbox.js";
import { changedError, notFoundError, replacedError } from "./sandbox-errors.js";
import { deletedEntry, handleRealPathSync } from "./verify-handle.js";

/**
 * openVerified opens the real path a resolution found with O_PATH|O_NOFOLLOW, which has no effect
 * on the entry (a FIFO or device is not opened), then verifies the descriptor before anything else
 * is done with it: its real path, read from /proc/self/fd/N, must lie in a root. A link where the
 * real path had none, or a real path outside, is a swap (PATH_TRAVERSAL); a file removed or
 * replaced in between by a plain rename is FILE_CHANGED, with a retry as the remedy.
 */
export async function openVerified(roots: readonly SandboxRoot[], resolution: Resolution): Promise<VerifiedEntry> {
  const { resolved } = resolution;
  if (!resolved.exists) {
    throw notFoundError(resolved.clientPath);
  }
  let handle: PathHandle;
  try {
    handle = await openPath(resolved.realPath);
  } catch (err) {
    // Gone since the resolution looked: removed or renamed away by another process.
    if (errnoCode(err) === "ENOENT") throw replacedError(resolved.clientPath);
    throw fsError(err, resolved.clientPath);
  }
  try {
    // Synchronous: the fstat of a descriptor just opened is answered from the kernel's memory (see
    // handleRealPathSync).
    const stats = fstatSync(handle.fd);
    verifyLocation(roots, handle, stats, resolution);
    if (stats.isSymbolicLink()) {
      // The resolved real path has no link in it; one there now was put there since.
      throw changedError(resolved.clientPath);
    }
    return { resolved, handle, stats };
  } catch (err) {
    handle.close();
    throw fsError(err, resolved.clientPath);
  }
}

/**
 * verifyLocation checks where an opened descriptor really is. A descriptor whose entry was
 * removed since it was opened has no path left to check, so it is refused as FILE_CHANGED (a
 * retry opens whatever replaced it): even the inode the resolution saw may have been an outside
 * one, looked at by name under a swap. Without /proc (not Linux) the same-inode comparison with
 * the resolution is all there is.
 */
function verifyLocation(roots: readonly SandboxRoot[], handle: PathHandle, stats: Stats, resolution: Resolution): void {
  const { clientPath } = resolution.resolved;
  const sameInode =
    resolution.stats !== undefined && resolution.stats.dev === stats.dev && resolution.stats.ino === stats.ino;
  const location = handleRealPathSync(handle.fd);
  if (location === undefined) {
    if (!sameInode) throw changedError(clientPath);
    return;
  }
  if (location === deletedEntry) {
    throw replacedError(clientPath);
  }
  if (rootContaining(roots, location) === undefined) {
    throw changedError(clientPath);
  }
}
