import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { ToolhostError } from "../errors/toolhost-error.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { nodeFsOps, type AtomicFsOps } from "./write/fs-ops.js";
import { withPathLock } from "./write/path-lock.js";
import { checkPreconditions, currentSha256, parsePreconditions } from "./write/preconditions.js";
import { toWriteError } from "./write/write-error.js";
import { describeFileType } from "./write/file-type.js";

/** DeleteFileOptions is one DeleteFile request in domain terms. */
export interface DeleteFileOptions {
  readonly path: string;
  /** Delete only if the current content has this SHA-256. */
  readonly ifSha256?: string | undefined;
  readonly fsOps?: AtomicFsOps | undefined;
}

/**
 * deleteFile removes one regular file, or a symlink inside the roots (the link, never what it
 * points to). A directory or other non-file is refused; a missing file is not an error, the
 * result says it was not there. The directory is synced so the removal survives a crash.
 */
export async function deleteFile(sandbox: Sandbox, options: DeleteFileOptions): Promise<{ existed: boolean }> {
  const clientPath = options.path;
  const ops = options.fsOps ?? nodeFsOps;
  const preconditions = parsePreconditions(options.ifSha256, false);
  const resolved = await sandbox.resolveForWrite(clientPath);
  // absolutePath names the link itself (final component not followed); realPath what it points to.
  const victim = resolved.isSymlink ? resolved.absolutePath : resolved.realPath;
  return withPathLock(resolved.realPath, async () => {
    const stats = await lstatOrUndefined(victim, clientPath);
    if (stats !== undefined && !stats.isFile() && !stats.isSymbolicLink()) {
      throw new ToolhostError(
        "NOT_A_REGULAR_FILE",
        `Cannot delete non-file path '${clientPath}': it is a ${describeFileType(stats)}; DeleteFile removes files only, so nothing was deleted.`,
        { path: clientPath },
      );
    }
    if (preconditions.ifSha256 !== undefined) {
      checkPreconditions(clientPath, preconditions, stats === undefined ? undefined : await currentSha256(sandbox, clientPath));
    }
    if (stats === undefined) {
      return { existed: false };
    }
    try {
      await ops.unlink(victim);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        return { existed: false }; // Someone else deleted it first: the outcome the client asked for.
      }
      throw toWriteError(err, clientPath, "delete");
    }
    await syncAfterDelete(ops, path.dirname(victim), clientPath);
    return { existed: true };
  });
}

async function lstatOrUndefined(file: string, clientPath: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      return undefined;
    }
    throw toWriteError(err, clientPath, "delete");
  }
}

async function syncAfterDelete(ops: AtomicFsOps, dir: string, clientPath: string): Promise<void> {
  try {
    await ops.fsyncDir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    throw new ToolhostError(
      "IO_ERROR",
      `'${clientPath}' was deleted, but syncing its directory failed (${code}), so the deletion may not survive a crash; check the disk.`,
      { path: clientPath, errno: code, committed: "true" },
      { cause: err },
    );
  }
}
