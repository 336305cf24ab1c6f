import { link, readlink, symlink } from "node:fs/promises";
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
}

/** nodeTreeFsOps is TreeFsOps on the real filesystem. */
export const nodeTreeFsOps: TreeFsOps = {
  ...nodeFsOps,
  link: (existing, newName) => link(existing, newName),
  readlink: (file) => readlink(file),
  symlink: (target, file) => symlink(target, file),
};
