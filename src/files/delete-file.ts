import type { Stats } from "node:fs";
import path from "node:path";
import { isToolhostError, ToolhostError } from "../errors/toolhost-error.js";
import { errnoCode } from "../sandbox/fs-error.js";
import { changedError } from "../sandbox/sandbox-errors.js";
import type { ResolvedEntry, Sandbox } from "../sandbox/sandbox.js";
import { sha256OfHandle } from "./content-hash.js";
import { describeFileType } from "./write/file-type.js";
import { nodeFsOps, type AtomicFsOps } from "./write/fs-ops.js";
import { acquireFileLock, type FileLock } from "./write/file-lock.js";
import { withPathLock } from "./write/path-lock.js";
import { syncDirectory } from "./tree/sync-directory.js";
import { checkPreconditions, currentSha256, parsePreconditions } from "./write/preconditions.js";
import { openTargetDirectory, type TargetDirectory } from "./write/target-directory.js";
import { toWriteError } from "./write/write-error.js";

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
 *
 * What is removed is the entry the path names in its parent's real directory: the sandbox
 * resolves the parent (never the final component) and requires it, and the entry's own place,
 * in a writable root. The parent is then held open and the unlink names the entry relative to
 * that descriptor, so swapping a path component for a link to elsewhere cannot redirect it.
 */
export async function deleteFile(sandbox: Sandbox, options: DeleteFileOptions): Promise<{ existed: boolean }> {
  const clientPath = options.path;
  const ops = options.fsOps ?? nodeFsOps;
  const preconditions = parsePreconditions(options.ifSha256, false);
  const entry = await sandbox.resolveEntryForWrite(clientPath);
  return withPathLock(
    path.join(entry.parentRealPath, entry.name),
    async () => {
      const dir = await openParent(ops, sandbox, entry);
      let lock: FileLock | undefined;
      try {
        // A guarded delete holds the cross-process lock from the hash to the unlink, like a guarded write.
        if (dir !== undefined && preconditions.ifSha256 !== undefined) {
          lock = await acquireFileLock(dir, entry.name, { displayPath: clientPath }).catch((err: unknown) => {
            throw toWriteError(err, clientPath, "delete");
          });
        }
        const victim = dir?.entry(entry.name);
        const stats = victim === undefined ? undefined : await lstatOrUndefined(ops, victim, clientPath);
        if (stats !== undefined && !stats.isFile() && !stats.isSymbolicLink()) {
          throw new ToolhostError(
            "NOT_A_REGULAR_FILE",
            `Cannot delete non-file path '${clientPath}': it is a ${describeFileType(stats)}; DeleteFile removes files only, so nothing was deleted.`,
            { path: clientPath },
          );
        }
        if (preconditions.ifSha256 !== undefined) {
          checkPreconditions(
            clientPath,
            preconditions,
            stats === undefined || dir === undefined
              ? undefined
              : await hashOf(sandbox, dir, entry.name, stats, clientPath),
          );
        }
        if (dir === undefined || victim === undefined || stats === undefined) {
          return { existed: false };
        }
        try {
          await lock?.assertHeld();
          await ops.unlink(victim);
        } catch (err) {
          if (errnoCode(err) === "ENOENT") {
            return { existed: false }; // Someone else deleted it first: the outcome the client asked for.
          }
          throw toWriteError(err, clientPath, "delete");
        }
        await syncDirectory(ops, dir.handle, clientPath, "was deleted");
        return { existed: true };
      } finally {
        await lock?.release();
        await dir?.close();
      }
    },
    { displayPath: clientPath },
  );
}

/** openParent holds the entry's directory open; undefined when it does not exist (nor the file). */
async function openParent(
  ops: AtomicFsOps,
  sandbox: Sandbox,
  entry: ResolvedEntry,
): Promise<TargetDirectory | undefined> {
  try {
    return await openTargetDirectory(ops, entry.parentRealPath, {
      roots: sandbox.roots,
      displayPath: entry.clientPath,
    });
  } catch (err) {
    if (errnoCode(err) === "ENOENT") {
      return undefined;
    }
    throw toWriteError(err, entry.clientPath, "delete");
  }
}

async function lstatOrUndefined(ops: AtomicFsOps, file: string, clientPath: string): Promise<Stats | undefined> {
  try {
    return await ops.statTarget(file);
  } catch (err) {
    throw toWriteError(err, clientPath, "delete");
  }
}

/**
 * hashOf hashes what a guarded delete would remove, through the sandbox's content path: a regular
 * file as the entry of the held directory (the very file to be unlinked; refused with several hard
 * links unless allowed, like every read), a link's target as every read of a path does.
 */
async function hashOf(
  sandbox: Sandbox,
  dir: TargetDirectory,
  name: string,
  stats: Stats,
  clientPath: string,
): Promise<string | undefined> {
  if (stats.isSymbolicLink()) {
    return currentSha256(sandbox, clientPath);
  }
  let opened;
  try {
    opened = await sandbox.openContentAt(dir.handle, name, clientPath);
  } catch (err) {
    if (isToolhostError(err, "NOT_FOUND")) return undefined; // removed meanwhile
    if (isToolhostError(err, "NOT_A_REGULAR_FILE")) throw changedError(clientPath); // swapped for something else since its lstat
    throw toWriteError(err, clientPath, "delete");
  }
  try {
    return await sha256OfHandle(opened.handle);
  } finally {
    await opened.handle.close();
  }
}
