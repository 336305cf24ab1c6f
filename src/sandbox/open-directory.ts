import { constants } from "node:fs";
import { access, lstat, open, type FileHandle } from "node:fs/promises";
import { errnoCode, fsError } from "./fs-error.js";
import type { SandboxRoot } from "./sandbox.js";
import { changedError, notDirectoryError } from "./sandbox-errors.js";
import { handleIsInRoots, procFdPath } from "./verify-handle.js";

/**
 * OpenedDirectory is a directory held open by descriptor. `path` names it for readdir and lstat
 * of its entries: /proc/self/fd/N where available, so a directory swapped after the check cannot
 * redirect the listing; the real path otherwise.
 */
export interface OpenedDirectory {
  readonly path: string;
  close(): Promise<void>;
}

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * openDirectory opens a directory the sandbox resolved (a real path inside the roots), refusing
 * a symlink swapped in since, and checks that the opened descriptor's real path lies in a root.
 */
export async function openDirectory(roots: readonly SandboxRoot[], realPath: string, clientPath: string): Promise<OpenedDirectory> {
  let handle: FileHandle;
  let before;
  try {
    before = await lstat(realPath);
    handle = await open(realPath, directoryFlags);
  } catch (err) {
    if (errnoCode(err) === "ENOTDIR") throw notDirectoryError(clientPath, undefined);
    if (errnoCode(err) === "ELOOP") throw changedError(clientPath);
    throw fsError(err, clientPath);
  }
  try {
    const stats = await handle.stat();
    if (!(await handleIsInRoots(roots, handle, stats, before))) {
      throw changedError(clientPath);
    }
    const viaProc = procFdPath(handle.fd);
    const path = await access(viaProc).then(() => viaProc, () => realPath);
    return { path, close: () => handle.close() };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
