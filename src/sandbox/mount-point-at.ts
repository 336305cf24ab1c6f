import { constants } from "node:os";
import { isMountPoint } from "./mount-points.js";
import { fsAt, type FsAt } from "./native/fs-at.js";

/** EntryMount is what entryMountAt found for one name of a held folder. */
export interface EntryMount {
  /**
   * True when a filesystem is mounted on the name (a file or folder bind-mounted from elsewhere,
   * NFS, FUSE): calls on that name may then wait on another filesystem's server or daemon.
   */
  readonly mountPoint: boolean;
  /**
   * The entry held with O_PATH|O_NOFOLLOW (nothing opened for I/O, a link held as itself) when it
   * exists on the folder's own mount and the addon could tell; the caller closes it. Undefined
   * otherwise.
   */
  readonly held: number | undefined;
}

const { EXDEV, ENOENT, ENOTDIR, ENOSYS, EPERM } = constants.errno;

/** openat2Refused is set once openat2 is seen to be missing or filtered: the table is used from then on. */
let openat2Refused = false;

/**
 * entryMountAt tells whether the entry `name` of the held folder `dirFd` is a mount point, asking
 * the kernel through that descriptor (the addon's holdOnFolderMount: openat2 with
 * RESOLVE_NO_XDEV), so the answer is the folder's as it is now: a mount moved along with a
 * renamed folder (MoveFile, another process) is still seen, where a lookup of `realPath` in
 * mount-points.ts's copy of the mount table (up to 5 s old, by path) would judge it local.
 *
 * The same call holds the entry when it is there and local, so that a caller about to replace it
 * keeps that descriptor as its pin (replaced-file-pin.ts) instead of opening the name again: on
 * the way to a commit this costs no system call more than before, except one failed lookup
 * (ENOENT) for a file about to be created.
 *
 * Without the addon, or without openat2 (kernel < 5.6, a seccomp filter that refuses it), or on
 * any other error, the answer is the mount table's for `realPath` (the behaviour before), with
 * nothing held. `addon` is the loaded addon (null: none), replaceable in tests.
 */
export function entryMountAt(
  dirFd: number,
  name: string,
  realPath: string,
  addon: FsAt | null = fsAt ?? null,
): EntryMount {
  if (addon !== null && !openat2Refused) {
    const fd = addon.holdOnFolderMount(dirFd, name);
    if (fd >= 0) return { mountPoint: false, held: fd };
    if (fd === -EXDEV) return { mountPoint: true, held: undefined };
    if (fd === -ENOENT || fd === -ENOTDIR) return { mountPoint: false, held: undefined }; // Nothing there to be mounted on.
    if (fd === -ENOSYS || fd === -EPERM) openat2Refused = true;
  }
  return { mountPoint: isMountPoint(realPath), held: undefined };
}
