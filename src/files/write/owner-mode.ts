import type { Stats } from "node:fs";
import type { AtomicFsOps } from "./fs-ops.js";
import type { StagedFile } from "./staged-descriptor.js";

const defaultNewFileMode = 0o644 & ~process.umask();

/**
 * applyOwnerAndMode gives the staged file, through its handle, the replaced file's owner and mode
 * less set-uid/set-gid, or for a new file the requested mode (default 0644 under the umask).
 */
export async function applyOwnerAndMode(
  ops: AtomicFsOps,
  handle: StagedFile,
  current: Stats | undefined,
  mode: number | undefined,
): Promise<void> {
  if (current === undefined) {
    await ops.chmod(handle, mode ?? defaultNewFileMode);
    return;
  }
  if (current.uid !== process.getuid?.() || current.gid !== process.getgid?.()) {
    try {
      await ops.chown(handle, current.uid, current.gid);
    } catch (err) {
      // Keeping the owner is "where permitted": an unprivileged server may not give a file away,
      // and the rewrite must still succeed. Only that refusal is tolerated; other errors fail.
      if ((err as NodeJS.ErrnoException).code !== "EPERM") {
        throw err;
      }
    }
  }
  // Permission bits and the sticky bit survive; set-uid and set-gid do not. The content is now
  // the agent's, and the kernel clears those bits when an ordinary user rewrites a file, so
  // keeping them would hand the old owner's privileges to whatever the agent wrote (new files
  // may not ask for them either, see parseFileMode).
  await ops.chmod(handle, current.mode & 0o1777);
}
