import { link, readlink, symlink } from "node:fs/promises";
import { constants } from "node:os";
import { getSystemErrorName } from "node:util";
import { fsAt } from "../../sandbox/native/fs-at.js";
import { nodeFsOps, type AtomicFsOps } from "../write/fs-ops.js";

/**
 * TreeFsOps is AtomicFsOps plus the calls only moves and copies need. Paths name entries relative
 * to held, verified directory descriptors (/proc/self/fd/N/name), as everywhere on the write side.
 */
export interface TreeFsOps extends AtomicFsOps {
  /** link(2): a new name for the same inode; EEXIST, atomically, when the new name is taken. Never follows a final symlink on Linux. */
  link(existing: string, newName: string): Promise<void>;
  /** readlink(2) of a symbolic link. */
  readlink(file: string): Promise<string>;
  /** symlink(2): creates a link holding `target`, which is not resolved. */
  symlink(target: string, file: string): Promise<void>;
  /**
   * renameat2(RENAME_NOREPLACE) of an entry of a held directory to a name in another (or the
   * same): one atomic step, EEXIST when `to` is taken, never replacing it. False, with nothing
   * done, where it cannot be made (no native addon, no /proc names, or a kernel or filesystem
   * without the flag): the caller then takes the two-step fallback (place-entry.ts).
   */
  renameNoReplace(from: string, to: string): Promise<boolean>;
}

/** nodeTreeFsOps is TreeFsOps on the real filesystem. */
export const nodeTreeFsOps: TreeFsOps = {
  ...nodeFsOps,
  link: (existing, newName) => link(existing, newName),
  readlink: (file) => readlink(file),
  symlink: (target, file) => symlink(target, file),
  renameNoReplace: async (from, to) => renameNoReplace(from, to),
};

/** heldEntry splits /proc/self/fd/N/name (an entry of a held directory) into N and name. */
function heldEntry(at: string): { fd: number; name: string } | undefined {
  const match = /^\/proc\/self\/fd\/([0-9]+)\/([^/]+)$/.exec(at);
  return match === null ? undefined : { fd: Number(match[1]), name: match[2]! };
}

/**
 * renameNoReplace makes the rename relative to the two held descriptors the names come from,
 * through the native addon (Node has no renameat2); a name not of that form, or no addon, or
 * EINVAL/ENOSYS (the flag refused): false, nothing done.
 */
function renameNoReplace(from: string, to: string): boolean {
  const source = heldEntry(from);
  const target = heldEntry(to);
  if (fsAt === undefined || source === undefined || target === undefined) return false;
  const r = fsAt.renameNoReplaceAt(source.fd, source.name, target.fd, target.name);
  if (r === 0) return true;
  if (r === -constants.errno.EINVAL || r === -constants.errno.ENOSYS) return false;
  const code = getSystemErrorName(r);
  throw Object.assign(new Error(`${code}: renameat2 '${to}'`), { code, errno: r, syscall: "renameat2" });
}
