import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { errnoCode, fsError } from "./fs-error.js";
import { childPath, O_PATH } from "./path-handle.js";
import { crossesMountPoint } from "./mount-points.js";
import { rootContaining } from "./root-containing.js";
import type { SandboxRoot } from "./sandbox.js";
import { changedError, notDirectoryError, replacedError } from "./sandbox-errors.js";
import { deletedEntry, handleRealPath, procFdPath } from "./verify-handle.js";

/**
 * OpenedDirectory is a directory held open by descriptor and verified inside the roots. `path`
 * (/proc/self/fd/N) names it for readdir, and its entries as `${path}/${name}`: the kernel
 * resolves it to the held directory, so a directory swapped after the check cannot redirect a
 * listing or a lookup. `realPath` is where the kernel says it is.
 */
export interface OpenedDirectory {
  readonly path: string;
  /** The held descriptor (O_PATH) itself, for the *at() calls of the native addon. */
  readonly fd: number;
  readonly realPath: string;
  /**
   * The directory is on its root's own local filesystem, with no mount point on the way: its
   * entries' metadata may be looked up on the calling thread (sync-io-policy.ts), except an entry
   * that is itself a mount point (isMountPoint).
   */
  readonly local: boolean;
  close(): Promise<void>;
}

/**
 * directoryFlags open a directory with O_PATH (nothing is opened for reading until it is verified;
 * readdir of /proc/self/fd/N then opens that very directory), refusing a final link, and failing
 * with ENOTDIR on anything but a directory before it is opened.
 */
const directoryFlags = O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * openDirectory opens a directory the sandbox resolved (a real path inside the roots), refusing
 * a symlink swapped in since, and checks that the opened descriptor's real path lies in a root.
 */
export function openDirectory(
  roots: readonly SandboxRoot[],
  realPath: string,
  clientPath: string,
): Promise<OpenedDirectory> {
  return openVerifiedDirectory(roots, realPath, clientPath);
}

/**
 * openChildDirectory opens the sub-directory `name` of a verified directory, relative to its
 * descriptor (never by a re-joined name), not following a link, and verifies it likewise.
 */
export function openChildDirectory(
  roots: readonly SandboxRoot[],
  parent: OpenedDirectory,
  name: string,
  clientPath: string,
): Promise<OpenedDirectory> {
  return openVerifiedDirectory(roots, childPath(parent.path, name), clientPath);
}

async function openVerifiedDirectory(
  roots: readonly SandboxRoot[],
  toOpen: string,
  clientPath: string,
): Promise<OpenedDirectory> {
  let handle: FileHandle;
  try {
    handle = await open(toOpen, directoryFlags);
  } catch (err) {
    if (errnoCode(err) === "ENOTDIR") throw notDirectoryError(clientPath, undefined);
    if (errnoCode(err) === "ELOOP") throw changedError(clientPath);
    throw fsError(err, clientPath);
  }
  try {
    const location = await handleRealPath(handle.fd);
    if (location === deletedEntry) throw replacedError(clientPath);
    const root = location === undefined ? undefined : rootContaining(roots, location);
    if (location === undefined || root === undefined) throw changedError(clientPath);
    const local = root.localDevice !== undefined && !crossesMountPoint(root.path, location);
    return { path: procFdPath(handle.fd), fd: handle.fd, realPath: location, local, close: () => handle.close() };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
