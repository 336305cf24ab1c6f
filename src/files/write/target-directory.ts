import { fstatSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { errnoCode } from "../../sandbox/fs-error.js";
import { crossesMountPoint } from "../../sandbox/mount-points.js";
import { rootContaining } from "../../sandbox/root-containing.js";
import type { SandboxRoot } from "../../sandbox/sandbox.js";
import { changedError } from "../../sandbox/sandbox-errors.js";
import { deletedEntry, handleRealPath, procFdPath } from "../../sandbox/verify-handle.js";
import { readOnlyError } from "../../sandbox/write-refusals.js";
import type { DirectoryHandle } from "./directory-descriptor.js";
import type { AtomicFsOps } from "./fs-ops.js";

/**
 * TargetDirectory is the directory a write or delete acts in, held open by descriptor from the
 * moment it is checked until the change is done, so that swapping a path component for a
 * symlink afterwards cannot move the change elsewhere.
 */
export interface TargetDirectory {
  /** The open directory; fsync it after a rename or unlink in it. */
  readonly handle: DirectoryHandle;
  /**
   * True when the directory lies on its root's local filesystem (SandboxRoot.localDevice, checked
   * by the descriptor's own device): small whole-file writes in it may be made on the calling
   * thread (see maxSyncWriteBytes). False without roots.
   */
  readonly local: boolean;
  /** entry names `name` in the open directory: /proc/self/fd/N/name, or by real path without /proc. */
  entry(name: string): string;
  /** removeCreated removes, deepest first, the directories this call created, each only if still empty. */
  removeCreated(): Promise<void>;
  /** close closes every descriptor held. */
  close(): Promise<void>;
}

/** TargetDirectoryOptions tunes openTargetDirectory. */
export interface TargetDirectoryOptions {
  /** Create missing directories, one at a time, each inside the one opened before it. */
  readonly createParents?: boolean | undefined;
  /** When given, every directory opened must really lie in a writable one of these roots. */
  readonly roots?: readonly SandboxRoot[] | undefined;
  /** The path as the client gave it, for refusals. */
  readonly displayPath: string;
}

/** Held is one open directory, the name its entries are reached by, and its real path. */
interface Held {
  readonly handle: DirectoryHandle;
  readonly base: string;
  readonly real: string;
  /** See TargetDirectory.local. */
  readonly local: boolean;
}

/**
 * openTargetDirectory opens `realDir` (a real path the sandbox resolved) with O_NOFOLLOW and, on
 * Linux, checks the descriptor's own real path (/proc/self/fd/N) against the writable roots:
 * a component swapped for a link after the check is caught here, and once open, the directory
 * the descriptor names cannot change. Missing directories are created by name inside their
 * already-verified parent descriptor, never by a path walked again from the top.
 *
 * However deep the chain of created parents, at most two directory descriptors are open at once:
 * each level's is closed as soon as the next level is made, opened and verified through it. Should
 * the write fail, removeCreated climbs back through "..", each parent again opened relative to the
 * held child and verified to be the expected real path, and removes what this call created.
 *
 * Errors from the filesystem pass through as they are (ENOENT, ENOTDIR) for the caller to word;
 * a swap is PATH_TRAVERSAL. Without /proc (non-Linux) entries are named by real path and only
 * that path is checked, which is the behaviour before descriptors were used: a swap racing the
 * call is then not caught.
 */
export async function openTargetDirectory(
  ops: AtomicFsOps,
  realDir: string,
  options: TargetDirectoryOptions,
): Promise<TargetDirectory> {
  let held: Held | undefined;
  /** The directories this call created, outermost first. */
  const created: Created[] = [];
  const removeCreated = async (): Promise<void> => {
    if (held !== undefined) await removeCreatedUpwards(ops, held, created.splice(0), options);
  };
  const close = async (): Promise<void> => {
    const last = held;
    held = undefined;
    await last?.handle.close().catch(() => undefined); // Nothing is lost by a failed close of a directory.
  };
  try {
    const missing: string[] = [];
    for (let current = realDir; ; current = path.dirname(current)) {
      try {
        held = await openVerified(ops, current, current, options);
        break;
      } catch (err) {
        if (errnoCode(err) !== "ENOENT" || options.createParents !== true || path.dirname(current) === current)
          throw err;
        missing.unshift(path.basename(current));
      }
    }
    for (const name of missing) {
      const parent: Held = held!;
      const child = path.join(parent.base, name);
      let made: Created | undefined;
      try {
        await ops.mkdir(child, 0o777, parent.local);
        // Which directory it is, taken at once through the verified parent: cleanup removes only
        // this one, not another put at its name since, and can remove it even if its open fails.
        made = { real: path.join(parent.real, name), id: identity(await ops.statTarget(child, parent.local)) };
        created.push(made);
      } catch (err) {
        if (errnoCode(err) !== "EEXIST") throw err; // Made meanwhile by another writer: use it, keep it.
      }
      held = await openVerified(ops, child, path.join(parent.real, name), options);
      await parent.handle.close().catch(() => undefined);
      // The directory opened is another than the one made (swapped in between): neither is removed.
      if (made?.id !== undefined && identity(await ops.statTarget(`${held.base}/.`, held.local)) !== made.id)
        made.id = undefined;
    }
  } catch (err) {
    await removeCreated();
    await close();
    throw err;
  }
  const target = held!;
  return {
    handle: target.handle,
    local: target.local,
    entry: (name) => path.join(target.base, name),
    removeCreated,
    close,
  };
}

/** Created is a directory a call made: its real path, and its device and inode (undefined when unsure). */
interface Created {
  readonly real: string;
  id: string | undefined;
}

/** identity is a directory's device and inode, as one string; undefined for none. */
function identity(stats: { readonly dev: number; readonly ino: number } | undefined): string | undefined {
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}

/**
 * removeCreatedUpwards removes, deepest first, the directories in `created` (outermost first) that
 * lie on the chain from `held` upwards, each only if still empty (a directory someone else has put
 * something in by now is theirs too) and still the directory this call made: the entry's device
 * and inode are compared with those taken by lstat just after its mkdir (and found again on its
 * descriptor once opened), so an empty directory renamed in over the made one's name is kept. One
 * swapped in between the mkdir and that lstat (adjacent calls on this thread for a local folder),
 * or renamed in between the comparison and the rmdir, can still be removed (no call makes a
 * directory and returns its descriptor, none removes one by inode); it stays within the root, and
 * empty. A created directory just below `held` (made, but its open failed) is removed through
 * `held`. Parents are opened as `held/..` and verified, so no name is walked again from the top;
 * `held` itself stays open.
 */
async function removeCreatedUpwards(
  ops: AtomicFsOps,
  held: Held,
  created: readonly Created[],
  options: TargetDirectoryOptions,
): Promise<void> {
  if (created.length === 0) return;
  const pending = new Map(created.map((dir) => [dir.real, dir]));
  for (const dir of created) {
    if (path.dirname(dir.real) === held.real) {
      await removeIfSame(ops, held, dir); // Made, but its open failed.
      pending.delete(dir.real);
    }
  }
  let current = held;
  try {
    while (pending.size > 0 && path.dirname(current.real) !== current.real) {
      const parentReal = path.dirname(current.real);
      let parent: Held;
      try {
        parent = await openVerified(ops, `${current.base}/..`, parentReal, options); // Not path.join: it would drop the "..".
      } catch {
        return; // Moved or gone: what is left is no longer where this call made it.
      }
      if (parent.real !== parentReal) {
        await parent.handle.close().catch(() => undefined);
        return;
      }
      const dir = pending.get(current.real);
      if (dir !== undefined) {
        pending.delete(current.real);
        await removeIfSame(ops, parent, dir);
      }
      if (current !== held) await current.handle.close().catch(() => undefined);
      current = parent;
    }
  } finally {
    if (current !== held) await current.handle.close().catch(() => undefined);
  }
}

/** removeIfSame removes `dir`, an entry of `parent`, if it is still empty and still the directory made. */
async function removeIfSame(ops: AtomicFsOps, parent: Held, dir: Created): Promise<void> {
  if (dir.id === undefined) return;
  const entry = path.join(parent.base, path.basename(dir.real));
  const now = await ops.statTarget(entry, parent.local).catch(() => undefined);
  if (identity(now) === dir.id) await ops.rmdir(entry).catch(() => undefined);
}

/**
 * openVerified opens one directory by `openPath` and checks where it really is; `realPath` is
 * what it should be, the name used for its entries when /proc is missing.
 */
async function openVerified(
  ops: AtomicFsOps,
  openPath: string,
  realPath: string,
  options: TargetDirectoryOptions,
): Promise<Held> {
  let handle: DirectoryHandle;
  try {
    // Opened on this thread when the root it should lie in is on a local filesystem and no other
    // filesystem is mounted on the way: a lookup through the dentry cache, as the sandbox's own
    // opens (see sync-io-policy.ts).
    const root = options.roots === undefined ? undefined : rootContaining(options.roots, realPath);
    const inPlace = root?.localDevice !== undefined && !crossesMountPoint(root.path, realPath);
    handle = await ops.openDirectory(openPath, inPlace);
  } catch (err) {
    // The sandbox resolved every link, so a link found now was swapped in since. Linux says
    // ENOTDIR, not ELOOP, for O_DIRECTORY|O_NOFOLLOW on a link, and the link may be gone again by
    // the time we look: only a non-directory still standing there is a real ENOTDIR.
    const code = errnoCode(err);
    if (code === "ELOOP" || (code === "ENOTDIR" && (await swappedSince(openPath))))
      throw changedError(options.displayPath);
    throw err;
  }
  try {
    const actual = await handleRealPath(handle.fd);
    if (actual === deletedEntry) {
      // Removed between the check and the open: nothing can be written in it.
      throw changedError(options.displayPath);
    }
    let local = false;
    if (options.roots !== undefined) {
      const root = rootContaining(options.roots, actual ?? realPath);
      if (root === undefined) throw changedError(options.displayPath);
      if (root.readOnly) throw readOnlyError(options.displayPath, false);
      local = root.localDevice !== undefined && fstatSync(handle.fd).dev === root.localDevice;
    }
    return { handle, base: actual === undefined ? realPath : procFdPath(handle.fd), real: actual ?? realPath, local };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** swappedSince tells whether `dir`, just refused as not a directory, is a link or a directory now. */
async function swappedSince(dir: string): Promise<boolean> {
  return lstat(dir).then(
    (stats) => stats.isSymbolicLink() || stats.isDirectory(),
    () => false,
  );
}
