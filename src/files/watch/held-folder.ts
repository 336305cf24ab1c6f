import {
  close,
  closeSync,
  constants,
  fstat,
  fstatSync,
  lstatSync,
  open,
  openSync,
  readlinkSync,
  watch,
  type FSWatcher,
  type Stats,
} from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { crossesMountPoint, isMountPoint } from "../../sandbox/mount-points.js";
import { entryMetadata } from "../entry-metadata.js";
import type { EntryKind, Seen } from "./watch-types.js";

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);

/**
 * WatchRoot is the root a watch lies in: its real path, its device when its filesystem is a local
 * one, and whether the sandbox allows hard links (else a file with several is described with its
 * size and time withheld, entryMetadata).
 */
export interface WatchRoot {
  readonly path: string;
  readonly localDevice?: number | undefined;
  readonly allowHardLinks: boolean;
}

/**
 * HeldFolder is a folder a watch opened and verified, held by descriptor while it is listed or
 * checked. `local` says its calls are made in place, on the event loop, as the sandbox makes them
 * on a local filesystem (src/sandbox/sync-io-policy.ts: a few microseconds each, where a
 * thread-pool round trip costs more and, on a loaded machine, waits for a thread to be scheduled):
 * the folder lies on its root's own local filesystem, with no mount point on the way.
 */
export interface HeldFolder {
  readonly fd: number;
  /** The folder's real path (as verified). */
  readonly real: string;
  readonly stats: Stats;
  readonly local: boolean;
  /** The root's allowHardLinks: how its entries are described (seenOf). */
  readonly allowHardLinks: boolean;
}

/**
 * openFolder opens the folder at `real` (an absolute path) without following a final link and
 * keeps it only if the kernel's path of what was opened is `real` itself and, when `expect` is
 * given, it is that very inode: undefined for a link, a non-folder, an entry gone, moved or
 * swapped meanwhile. Running out of descriptors is an error, not an absence.
 */
export async function openFolder(
  real: string,
  root: WatchRoot,
  expect?: { readonly ino: number; readonly dev: number },
): Promise<HeldFolder | undefined> {
  const inPlace = root.localDevice !== undefined && !crossesMountPoint(root.path, real);
  let fd: number;
  try {
    fd = inPlace ? openSync(real, folderFlags) : await openAsync(real, folderFlags);
  } catch (err) {
    throwIfOutOfDescriptors(err);
    return undefined;
  }
  try {
    const [stats, kernelPath] = inPlace
      ? [fstatSync(fd), readlinkSync(`/proc/self/fd/${fd}`)]
      : await Promise.all([fstatAsync(fd), readlink(`/proc/self/fd/${fd}`)]);
    if (kernelPath === real && (expect === undefined || (stats.ino === expect.ino && stats.dev === expect.dev))) {
      return { fd, real, stats, local: inPlace && stats.dev === root.localDevice, allowHardLinks: root.allowHardLinks };
    }
  } catch {
    // no /proc: cannot verify, so do not use
  }
  await closeFolder({ fd, local: inPlace });
  return undefined;
}

/** closeFolder closes a held folder's descriptor (in place when local: closing a folder opened for reading writes nothing back). */
export async function closeFolder(held: { readonly fd: number; readonly local: boolean }): Promise<void> {
  if (held.local) closeSync(held.fd);
  else await closeAsync(held.fd);
}

/** lstatIn lstats the entry `name` of a held folder through its descriptor; undefined when nothing is there. */
export async function lstatIn(held: HeldFolder, name: string): Promise<Seen | undefined> {
  const at = `/proc/self/fd/${held.fd}/${name}`;
  try {
    // A name something is mounted on leads to another filesystem: asked off the event loop.
    if (held.local && !isMountPoint(path.join(held.real, name))) {
      const stats = lstatSync(at, { throwIfNoEntry: false });
      return stats === undefined ? undefined : seenOf(stats, held.allowHardLinks);
    }
    return seenOf(await lstat(at), held.allowHardLinks);
  } catch (err) {
    throwIfOutOfDescriptors(err);
    return undefined;
  }
}

/**
 * placeWatch puts an inotify watch (node's fs.watch) on the verified folder held by `fd`: on that
 * inode, whatever its name becomes. Through "/." so that the folder's own events (moved,
 * removed) come with the name ".", which no entry has. The kernel's watches used up is a
 * QUOTA_EXCEEDED naming the sysctl.
 */
export function placeWatch(
  fd: number,
  clientPath: string,
  onEvent: (type: string, name: string | null) => void,
  onError: (err: Error) => void,
): FSWatcher {
  let watcher: FSWatcher;
  try {
    watcher = watch(`/proc/self/fd/${fd}/.`, { persistent: false }, onEvent);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOSPC") {
      throw new ToolhostError(
        "QUOTA_EXCEEDED",
        `The system's inotify watches are used up (fs.inotify.max_user_watches) while watching ${clientPath}; lower limits.max_watched_folders below that sysctl, or raise it.`,
      );
    }
    throw err;
  }
  watcher.on("error", onError);
  return watcher;
}

/**
 * seenOf is what a watch keeps of an entry's lstat: what may be reported of it (entryMetadata),
 * so a file whose size and time are withheld is also never MODIFIED by a change of them.
 */
export function seenOf(stats: Stats, allowHardLinks: boolean): Seen {
  const { size, modified, hardLinked } = entryMetadata(stats, allowHardLinks);
  return {
    ino: stats.ino,
    dev: stats.dev,
    kind: kindOf(stats),
    size,
    mtimeMs: modified === undefined ? 0 : stats.mtimeMs,
    hardLinked,
  };
}

function kindOf(stats: Stats): EntryKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

/** throwIfOutOfDescriptors turns EMFILE / ENFILE / ENOMEM into an IO_ERROR: the watch cannot see, so it must not guess. */
export function throwIfOutOfDescriptors(err: unknown): void {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EMFILE" || code === "ENFILE" || code === "ENOMEM") {
    throw new ToolhostError(
      "IO_ERROR",
      `The server is out of file descriptors or memory (${code}) while watching; retry later.`,
      {},
      { cause: err },
    );
  }
}

/** joinReal is the real path of a folder below the watched folder's real path. */
export function joinReal(top: string, rel: string): string {
  return rel === "" ? top : path.join(top, rel);
}
