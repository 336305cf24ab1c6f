import { errnoCode } from "../../sandbox/fs-error.js";
import type { TreeFsOps } from "./tree-fs-ops.js";

/**
 * placeEntry gives the entry at `from` the name `to` (both relative to held directories on one
 * filesystem) and reports whether `to` was taken:
 *
 * - with `overwrite`, one rename(2), replacing what is at `to` atomically;
 * - without, one renameat2(RENAME_NOREPLACE) (tree-fs-ops.ts): EEXIST, atomically, when `to` is
 *   taken, and a crash leaves the entry under one name or the other, never both or neither.
 *
 * Where the kernel or the filesystem refuses RENAME_NOREPLACE (or the native addon is not
 * built), two steps that never replace anything either, but that a crash between them can leave
 * half done (docs/files.md, "After a crash"):
 *
 * - for a file or link, link(2) then unlink(2) of the old name: link fails with EEXIST
 *   atomically when `to` exists (a crash between leaves two names of one inode);
 * - for a directory, mkdir(2) of `to` as a reservation (EEXIST, atomically, when taken), then
 *   rename(2) over that reservation: rename may replace only an empty directory, and the only
 *   empty directory there is the one just made (a crash between leaves that empty directory).
 *   Should another process fill the reservation meanwhile, the rename fails (ENOTEMPTY) and
 *   nothing is replaced.
 *
 * Errors pass through as errno errors (EEXIST when `to` is taken, EXDEV across filesystems) with
 * everything put back as it was.
 */
export async function placeEntry(
  ops: TreeFsOps,
  from: string,
  to: string,
  isDirectory: boolean,
  overwrite: boolean,
): Promise<void> {
  if (overwrite) {
    await ops.rename(from, to);
    return;
  }
  if (await ops.renameNoReplace(from, to)) return;
  if (isDirectory) {
    await ops.mkdir(to, 0o700);
    try {
      await ops.rename(from, to);
    } catch (err) {
      await ops.rmdir(to).catch(() => undefined); // our own, still empty reservation
      throw err;
    }
    return;
  }
  await ops.link(from, to);
  try {
    await ops.unlink(from);
  } catch (err) {
    // The old name could not go: take the new one back, so the move happened not at all.
    if (errnoCode(err) !== "ENOENT") await ops.unlink(to).catch(() => undefined);
    if (errnoCode(err) !== "ENOENT") throw err;
  }
}
