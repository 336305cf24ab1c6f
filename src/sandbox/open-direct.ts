import { fstatSync } from "node:fs";
import { openPath, openPathSync, type PathHandle } from "./path-handle.js";
import { checkClientPath, lexicalLocation } from "./resolve-in-roots.js";
import { crossesMountPoint } from "./mount-points.js";
import { rootContaining } from "./root-containing.js";
import type { SandboxRoot, VerifiedEntry } from "./sandbox.js";
import { handleRealPathSync } from "./verify-handle.js";

/**
 * openDirect is the fast path of openEntry for the common case, a path whose last component is
 * not a symlink: it opens the path as placed in its root by name (lexicalLocation) with
 * O_PATH|O_NOFOLLOW, letting the kernel follow any links in the directories, then asks the
 * kernel where the descriptor really is (/proc/self/fd/N) and keeps it only when that real path
 * lies in a root. That is one lookup (on a local filesystem made on the calling thread) where resolveInRoots makes one lstat per
 * component before openVerified opens the result.
 *
 * It returns undefined, holding nothing, for everything else: a final symlink (whose isSymlink
 * the client sees), no /proc, a removed entry, a real path outside the roots, any open failure
 * (missing, denied, a loop). The caller then takes the slow path, which refuses or resolves the
 * path with the same errors as before: a failure seen here is never reported as it is, so an
 * error never tells what exists outside the roots. Nothing is learnt by name and used again: the
 * one lookup is the open, and everything after it goes through the descriptor. O_PATH has no
 * effect on what it opens (a FIFO or device outside is not opened), so a lookup that lands
 * outside changes nothing there.
 *
 * Client-path checks (empty, NUL, length, `..` above the root) throw as in resolveInRoots.
 */
export async function openDirect(
  roots: readonly SandboxRoot[],
  clientPath: string,
): Promise<VerifiedEntry | undefined> {
  checkClientPath(clientPath);
  const { root: lexicalRoot, absolutePath } = lexicalLocation(roots, clientPath);
  let handle: PathHandle;
  try {
    // On a local filesystem without a thread-pool round trip (see sync-io-policy.ts).
    // (By name: a link on the way into another filesystem is not seen here; the mount points
    // named in the path are.)
    const inPlace = lexicalRoot.localDevice !== undefined && !crossesMountPoint(lexicalRoot.path, absolutePath);
    handle = inPlace ? openPathSync(absolutePath) : await openPath(absolutePath);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(handle.fd);
    const realPath = stats.isSymbolicLink() ? undefined : handleRealPathSync(handle.fd);
    const root = typeof realPath === "string" ? rootContaining(roots, realPath) : undefined;
    if (typeof realPath === "string" && root !== undefined) {
      return { resolved: { clientPath, absolutePath, realPath, root, exists: true, isSymlink: false }, handle, stats };
    }
  } catch {
    // Looked at through the descriptor only; the slow path decides what to say.
  }
  handle.close();
  return undefined;
}
