import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { errnoCode, fsError } from "./fs-error.js";
import type { Resolution } from "./resolve-in-roots.js";
import type { OpenedFile, SandboxRoot } from "./sandbox.js";
import { changedError, notFoundError, notRegularFileError } from "./sandbox-errors.js";
import { handleIsInRoots } from "./verify-handle.js";

/**
 * openFlags open without following a final symlink (the real path has none; one appearing now
 * is a swap) and without blocking (opening a FIFO for reading would otherwise wait for a writer
 * and hold a worker thread forever).
 */
const openFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * openRegularFile opens a resolved path for reading and checks the file actually opened: fstat
 * must say regular file, and the handle's real path must lie inside the roots. Any failure
 * closes the handle before throwing.
 *
 * A FIFO, socket or device seen while resolving is refused without being opened at all.
 */
export async function openRegularFile(roots: readonly SandboxRoot[], resolution: Resolution): Promise<OpenedFile> {
  const { resolved, stats } = resolution;
  if (!resolved.exists) {
    throw notFoundError(resolved.clientPath);
  }
  if (stats !== undefined && !stats.isFile() && !stats.isSymbolicLink()) {
    throw notRegularFileError(resolved.clientPath, stats);
  }
  let handle;
  try {
    handle = await open(resolved.realPath, openFlags);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ELOOP") throw changedError(resolved.clientPath);
    if (code === "ENXIO") throw notRegularFileError(resolved.clientPath, undefined);
    throw fsError(err, resolved.clientPath);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) {
      throw notRegularFileError(resolved.clientPath, opened);
    }
    if (!(await handleIsInRoots(roots, handle, opened, stats))) {
      throw changedError(resolved.clientPath);
    }
    return { resolved, handle, stats: opened };
  } catch (err) {
    await handle.close();
    throw fsError(err, resolved.clientPath);
  }
}
