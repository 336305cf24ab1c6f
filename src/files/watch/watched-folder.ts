import { constants, watch, type FSWatcher, type Stats } from "node:fs";
import { lstat, open, readlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { Seen } from "./pair-changes.js";
import type { EntryKind } from "./watch-types.js";

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Dirty is what a folder's watch reported since its last batch: each name (true when a content change was among it), or "all" past maxDirtyNames. */
export type Dirty = Map<string, boolean> | "all";

/** maxDirtyNames bounds the names a folder remembers between batches; past it the folder is listed again whole. */
export const maxDirtyNames = 256;

/**
 * WatchedFolder is one folder a watch holds an inotify watch on, placed through a descriptor the
 * watch opened and verified (so on that very inode, never on a name that could be swapped), and
 * what is known of its entries. Its place is its name in its parent's record, so renaming a
 * folder inside the tree moves the record and everything below it at once.
 */
export class WatchedFolder {
  readonly entries = new Map<string, Seen>();
  readonly children = new Map<string, WatchedFolder>();
  watcher: FSWatcher | undefined;
  dirty: Dirty = new Map();
  /** Its listing is complete: from now on its names are checked in batches. */
  listed = false;
  closed = false;

  constructor(
    public parent: WatchedFolder | undefined,
    public name: string,
    readonly ino: number,
    readonly dev: number,
  ) {}

  /** depth is how many folders lie between the watched folder and this one (0 for the watched folder). */
  get depth(): number {
    let depth = 0;
    for (let f = this.parent; f !== undefined; f = f.parent) depth++;
    return depth;
  }

  /** rel is the folder's path below the watched folder ("" for the watched folder itself). */
  get rel(): string {
    const names: string[] = [];
    for (let f: WatchedFolder | undefined = this; f?.parent !== undefined; f = f.parent) names.push(f.name);
    return names.reverse().join("/");
  }

  /** relOf is the path below the watched folder of one of this folder's entries. */
  relOf(name: string): string {
    const rel = this.rel;
    return rel === "" ? name : `${rel}/${name}`;
  }

  /** mark records a name the watch reported. */
  mark(name: string, changed: boolean): void {
    if (this.dirty === "all") return;
    if (this.dirty.size >= maxDirtyNames && !this.dirty.has(name)) {
      this.dirty = "all";
      return;
    }
    this.dirty.set(name, changed || this.dirty.get(name) === true);
  }

  /** isDirty tells whether the folder has names to check. */
  get isDirty(): boolean {
    return this.dirty === "all" || this.dirty.size > 0;
  }
}

/**
 * openFolder opens the folder at `real` (an absolute path) without following a final link and
 * keeps it only if the kernel's path of what was opened is `real` itself and, when `expect` is
 * given, it is that very inode: undefined for a link, a non-folder, an entry gone, moved or
 * swapped meanwhile. Running out of descriptors is an error, not an absence.
 */
export async function openFolder(real: string, expect?: { readonly ino: number; readonly dev: number }): Promise<{ handle: FileHandle; stats: Stats } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(real, folderFlags);
  } catch (err) {
    throwIfOutOfDescriptors(err);
    return undefined;
  }
  try {
    const [stats, kernelPath] = await Promise.all([handle.stat(), readlink(`/proc/self/fd/${handle.fd}`)]);
    if (kernelPath === real && (expect === undefined || (stats.ino === expect.ino && stats.dev === expect.dev))) return { handle, stats };
  } catch {
    // no /proc: cannot verify, so do not use
  }
  await handle.close();
  return undefined;
}

/**
 * placeWatch puts an inotify watch (node's fs.watch) on the verified folder held by `fd`: on that
 * inode, whatever its name becomes. Through "/." so that the folder's own events (moved,
 * removed) come with the name ".", which no entry has. The kernel's watches used up is a
 * QUOTA_EXCEEDED naming the sysctl.
 */
export function placeWatch(fd: number, clientPath: string, onEvent: (type: string, name: string | null) => void, onError: (err: Error) => void): FSWatcher {
  let watcher: FSWatcher;
  try {
    watcher = watch(`/proc/self/fd/${fd}/.`, { persistent: false }, onEvent);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOSPC") {
      throw new ToolhostError("QUOTA_EXCEEDED", `The system's inotify watches are used up (fs.inotify.max_user_watches) while watching ${clientPath}; lower limits.max_watched_folders below that sysctl, or raise it.`);
    }
    throw err;
  }
  watcher.on("error", onError);
  return watcher;
}

/** lstatIn lstats the entry `name` of a folder held by `fd`; undefined when nothing is there. */
export async function lstatIn(fd: number, name: string): Promise<Seen | undefined> {
  try {
    return seenOf(await lstat(`/proc/self/fd/${fd}/${name}`));
  } catch (err) {
    throwIfOutOfDescriptors(err);
    return undefined;
  }
}

/** seenOf is what a watch keeps of an entry's lstat. */
export function seenOf(stats: Stats): Seen {
  const kind = kindOf(stats);
  return { ino: stats.ino, dev: stats.dev, kind, size: kind === "file" ? stats.size : 0, mtimeMs: stats.mtimeMs };
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
    throw new ToolhostError("IO_ERROR", `The server is out of file descriptors or memory (${code}) while watching; retry later.`, {}, { cause: err });
  }
}

/** joinReal is the real path of a folder below the watched folder's real path. */
export function joinReal(top: string, rel: string): string {
  return rel === "" ? top : path.join(top, rel);
}
