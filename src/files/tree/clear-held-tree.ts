import type { SandboxRoot } from "../../sandbox/sandbox.js";
import type { AtomicFsOps } from "../write/fs-ops.js";
import { openTargetDirectory } from "../write/target-directory.js";
import { walkHeldTree } from "./walk-held-tree.js";

/**
 * discardTree removes a directory this server itself made (a failed copy's staging directory)
 * with everything in it, through held descriptors (walk-held-tree.ts), best effort: a failure to
 * clean up must not hide the error that made it necessary. True when it is gone.
 */
export async function discardTree(ops: AtomicFsOps, roots: readonly SandboxRoot[], at: string): Promise<boolean> {
  try {
    const dir = await openTargetDirectory(ops, at, { roots, displayPath: at });
    try {
      await walkHeldTree(ops, dir, {
        roots,
        displayPath: at,
        count: () => undefined, // bounded by the copy that built it
        visit: async (entry) => (entry.isDirectory ? ops.rmdir(entry.at) : ops.unlink(entry.at)),
      });
    } finally {
      await dir.close();
    }
    await ops.rmdir(at);
    return true;
  } catch {
    return false; // Left behind: its journal record stays, for the start-up sweep.
  }
}
