import { opendir } from "node:fs/promises";
import type { SandboxRoot } from "../../sandbox/sandbox.js";
import type { AtomicFsOps } from "../write/fs-ops.js";
import { openTargetDirectory, type TargetDirectory } from "../write/target-directory.js";

/** HeldTreeEntry is one entry met by walkHeldTree, in the directory held open around it. */
export interface HeldTreeEntry {
  /** Path relative to the walked directory, "/"-separated. */
  readonly rel: string;
  /** The entry relative to its held parent descriptor (/proc/self/fd/N/name). */
  readonly at: string;
  /** True for a real directory (a symlink to one is not: it is never followed). */
  readonly isDirectory: boolean;
  /** True for a symbolic link. */
  readonly isSymlink: boolean;
  /** True for a regular file. */
  readonly isFile: boolean;
}

/** WalkOptions tunes walkHeldTree. */
export interface WalkOptions {
  /** Every directory opened must really lie in a writable one of these roots. */
  readonly roots: readonly SandboxRoot[];
  /** The client's path of the walked directory, for refusals. */
  readonly displayPath: string;
  /** Called for each entry, a directory after everything in it (post-order). */
  readonly visit: (entry: HeldTreeEntry, parent: TargetDirectory) => Promise<void>;
  /** Called for a directory before what is in it (pre-order); optional. */
  readonly enter?: ((entry: HeldTreeEntry, parent: TargetDirectory) => Promise<void>) | undefined;
  /** Called before each entry is visited, to bound the walk: throw to stop it. */
  readonly count: () => void;
}

/**
 * walkHeldTree walks the tree below `dir` (a directory held open by a verified descriptor)
 * through descriptors only: each subdirectory is opened by name relative to its held parent
 * with O_DIRECTORY|O_NOFOLLOW (openTargetDirectory), and its descriptor's real path checked
 * against the writable roots, before anything in it is touched. A symlink is reported as a link
 * and never followed; a subdirectory swapped for a link between the lstat and the open fails the
 * open (ELOOP/ENOTDIR, PATH_TRAVERSAL) instead of leading out. Hand-written: no library walks a
 * tree through /proc/self/fd/N names, which Node needs for lack of openat().
 *
 * The names of one directory are read before any of them is visited (so a visit may remove its
 * entry without disturbing the listing), each batch bounded by `count`.
 */
export async function walkHeldTree(
  ops: AtomicFsOps,
  dir: TargetDirectory,
  options: WalkOptions,
  prefix = "",
): Promise<void> {
  const names: string[] = [];
  const listing = await opendir(dir.entry("."));
  try {
    for await (const dirent of listing) {
      options.count();
      names.push(dirent.name);
    }
  } catch (err) {
    await listing.close().catch(() => undefined); // for-await closes it on success
    throw err;
  }
  for (const name of names.sort()) {
    const at = dir.entry(name);
    const stats = await ops.statTarget(at);
    if (stats === undefined) continue; // gone meanwhile: nothing to do
    const entry: HeldTreeEntry = {
      rel: prefix + name,
      at,
      isDirectory: stats.isDirectory(),
      isSymlink: stats.isSymbolicLink(),
      isFile: stats.isFile(),
    };
    if (entry.isDirectory) {
      await options.enter?.(entry, dir);
      const child = await openTargetDirectory(ops, at, { roots: options.roots, displayPath: options.displayPath });
      try {
        await walkHeldTree(ops, child, options, `${entry.rel}/`);
      } finally {
        await child.close();
      }
    }
    await options.visit(entry, dir);
  }
}
