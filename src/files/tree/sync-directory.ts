import { ToolhostError } from "../../errors/toolhost-error.js";
import { errnoCode } from "../../sandbox/fs-error.js";
import type { DirectoryHandle } from "../write/directory-descriptor.js";
import type { AtomicFsOps } from "../write/fs-ops.js";

/**
 * syncDirectory fsyncs a held directory after a change in it, so the change survives a crash.
 * The change is done by then: a failure says so (committed=true) and asks to check the disk.
 */
export async function syncDirectory(
  ops: AtomicFsOps,
  dir: DirectoryHandle,
  clientPath: string,
  done: string,
): Promise<void> {
  try {
    await ops.fsyncDir(dir);
  } catch (err) {
    const code = errnoCode(err) ?? "unknown error";
    throw new ToolhostError(
      "IO_ERROR",
      `'${clientPath}' ${done}, but syncing its directory failed (${code}), so the change may not survive a crash; check the disk.`,
      { path: clientPath, errno: code, committed: "true" },
      { cause: err },
    );
  }
}
