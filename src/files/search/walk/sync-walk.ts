import { closeSync, constants, openSync, readdirSync, readlinkSync } from "node:fs";
import type { ContentRules } from "../../../sandbox/content/content-rules.js";
import { fsAt } from "../../../sandbox/native/fs-at.js";
import { isInside } from "../../../sandbox/root-containing.js";
import { IgnoreRules } from "../ignore-rules.js";
import type { PathMatcher } from "../path-globs.js";
import { throwIfOutOfDescriptors } from "./out-of-descriptors.js";
import { readIgnoreFilesSync, type ListedEntry } from "./read-ignore-files-sync.js";
import { maxWalkDepth, walkBatchFiles, walkBatchFolders, type IgnoreLayer, type WalkBatch } from "./walk-protocol.js";

/** O_PATH opens a folder to hold and name it, without reading it (Linux). */
const O_PATH = 0o10000000;
const folderFlags = O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** SyncWalkOptions choose which entries a walk hands over, compiled from a WalkRequest. */
export interface SyncWalkOptions {
  /** The caller's content rules: their roots hold every folder walked, and ignore files are read under them. */
  readonly rules: ContentRules;
  readonly include: PathMatcher | undefined;
  readonly exclude: PathMatcher | undefined;
  readonly useIgnoreFiles: boolean;
  readonly includeHidden: boolean;
  readonly inherited: readonly IgnoreLayer[];
}

/** Stopped unwinds a walk whose caller asked it to stop. */
class Stopped extends Error {}

/** Building is a batch being filled. */
interface Building {
  readonly fds: number[];
  readonly names: string[];
  /** Per file, its folder's verified kernel path (with the addon only, see FileList.folderRealPaths). */
  readonly reals: string[];
  readonly folderFds: number[];
  readonly folderPaths: string[];
  readonly close: number[];
  /** Distinct folder descriptors in folderFds and close (see walkBatchFolders). */
  descriptors: number;
}

const building = (): Building => ({
  fds: [],
  names: [],
  reals: [],
  folderFds: [],
  folderPaths: [],
  close: [],
  descriptors: 0,
});

/**
 * SyncWalk walks a folder tree synchronously (it runs on a walk worker thread, where blocking
 * calls cost no event loop and skip the thread-pool hops of async ones), depth-first in name
 * order, through verified folder descriptors only: each sub-folder is opened relative to its
 * parent's descriptor without following a link, and kept only if the kernel's record of it lies
 * inside the roots. Files to search are handed to `post` in batches of walkBatchFiles.
 *
 * Descriptors: the walk holds its current chain of folders (at most maxWalkDepth) and hands each
 * folder whose files went into a batch to the receiver, in the `close` list of a later batch, once
 * its subtree is walked; a folder none of whose files is searched is closed at once. A batch
 * refers to at most walkBatchFolders descriptors, so what a walk keeps open is bounded by its
 * chain and the batches not yet answered, however few files each folder has. Whatever it
 * still holds when it ends (stopped, failed) is returned by run() for the receiver to close after
 * the batches in flight are answered, so no descriptor a worker may still use is ever closed.
 *
 * Symlinks are never followed; hidden entries are skipped unless includeHidden, .git folders
 * always; .gitignore and .ignore rules apply (the ancestors' too) unless useIgnoreFiles is off;
 * exclude globs skip files and folders, include globs select files.
 *
 * With the native addon (fsAt) a sub-folder is opened with openat(parent, name, O_RDONLY |
 * O_DIRECTORY | O_NOFOLLOW) and listed with getdents64 on that descriptor itself (which the match
 * workers' barrier then reuses, see fs-at.c folder_open): the lookups the JavaScript path makes
 * through /proc/self/fd/N (O_PATH, then "." to list), without the procfs lookups and the second
 * open. TOOLHOST_NATIVE=0 or no addon: the JavaScript path.
 */
export class SyncWalk {
  #batch: Building = building();
  readonly #held = new Set<number>();
  /** Folders whose files went into a batch (posted or being built). */
  readonly #referenced = new Set<number>();

  constructor(
    private readonly options: SyncWalkOptions,
    private readonly post: (batch: WalkBatch) => void,
    private readonly stopped: () => boolean,
  ) {}

  /**
   * run walks the tree below `topFd` (which the caller holds and closes) and returns the
   * descriptors the walk still held when it ended, for the caller to close; it throws what
   * the walk threw (a glob over its time budget), never for a stop.
   */
  run(topFd: number): { close: number[]; error?: unknown } {
    let error: unknown;
    try {
      const inherited = this.options.inherited.reduce(
        (rules, layer) => rules.above(layer.prefix, layer.texts),
        IgnoreRules.none(),
      );
      this.#folder(topFd, "", inherited, 0, fsAt === undefined ? "" : (this.#insidePath(topFd) ?? ""));
      if (this.#batch.fds.length > 0 || this.#batch.close.length > 0) this.#flush();
    } catch (err) {
      if (!(err instanceof Stopped)) error = err;
    }
    const close = [...this.#batch.close, ...this.#held];
    this.#held.clear();
    return { close, error };
  }

  /**
   * folder walks the folder `fd` (at `relativeDir` below the start); `real` is its kernel path as
   * verified inside the roots (handed to the match workers with its files), "" when not verified.
   */
  #folder(fd: number, relativeDir: string, inherited: IgnoreRules, depth: number, real: string): void {
    if (this.stopped()) throw new Stopped();
    const entries = list(fd, relativeDir);
    if (entries === undefined) return; // unreadable or removed meanwhile: one folder must not fail the search
    const options = this.options;
    const rules = options.useIgnoreFiles
      ? inherited.within(relativeDir, readIgnoreFilesSync(fd, entries, options.rules, relativeDir))
      : inherited;
    const folders: string[] = [];
    // The entry's path below the start, made only for the globs and ignore rules that read it.
    const pathsRead = options.exclude !== undefined || options.include !== undefined || !rules.empty;
    for (const entry of entries) {
      const name = entry.name;
      if (name === ".git" || (!options.includeHidden && name.startsWith("."))) continue;
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile()) continue; // links, FIFOs, sockets, devices
      const relative = !pathsRead ? "" : relativeDir === "" ? name : `${relativeDir}/${name}`;
      if (options.exclude?.(relative, name) === true) continue;
      if (pathsRead && rules.ignores(relative, isDirectory)) continue;
      if (isDirectory) {
        folders.push(name);
      } else if (options.include === undefined || options.include(relative, name)) {
        if (this.#batch.folderFds[this.#batch.folderFds.length - 1] !== fd) {
          if (this.#batch.descriptors >= walkBatchFolders) this.#flush();
          this.#batch.folderFds.push(fd);
          this.#batch.folderPaths.push(relativeDir);
          this.#batch.descriptors++;
        }
        const batch = this.#batch;
        batch.fds.push(fd);
        batch.names.push(name);
        if (fsAt !== undefined) batch.reals.push(real);
        this.#referenced.add(fd);
        if (batch.fds.length >= walkBatchFiles) this.#flush();
      }
    }
    if (depth >= maxWalkDepth) return;
    for (const name of folders) {
      const child = this.#openChild(fd, name, relativeDir === "" ? name : `${relativeDir}/${name}`);
      if (child === undefined) continue; // swapped for a link, gone, or outside: skipped
      this.#folder(child.fd, relativeDir === "" ? name : `${relativeDir}/${name}`, rules, depth + 1, child.real);
      this.#done(child.fd);
    }
  }

  /**
   * openChild opens a sub-folder by its parent's descriptor and keeps it if inside the roots:
   * its descriptor and the kernel path that was verified.
   */
  #openChild(parentFd: number, name: string, relative: string): { fd: number; real: string } | undefined {
    let fd: number;
    if (fsAt !== undefined) {
      fd = fsAt.openDirAt(parentFd, name);
      if (fd < 0) {
        throwIfOutOfDescriptors(fd, relative);
        return undefined;
      }
    } else {
      try {
        fd = openSync(`/proc/self/fd/${parentFd}/${name}`, folderFlags);
      } catch (err) {
        throwIfOutOfDescriptors(err, relative);
        return undefined;
      }
    }
    this.#held.add(fd);
    const real = this.#insidePath(fd);
    if (real !== undefined) return { fd, real };
    this.#held.delete(fd);
    closeSync(fd);
    return undefined;
  }

  /** insidePath is the kernel path of the folder `fd` when it lies inside the roots, else undefined. */
  #insidePath(fd: number): string | undefined {
    try {
      const real = fsAt !== undefined ? fsAt.fdPath(fd) : readlinkSync(`/proc/self/fd/${fd}`);
      return real !== null && this.options.rules.roots.some((root) => isInside(root, real)) ? real : undefined;
    } catch {
      return undefined; // no /proc: cannot verify, so do not use
    }
  }

  /** done gives up a walked folder: closed now, or handed over behind the batches using it. */
  #done(fd: number): void {
    this.#held.delete(fd);
    if (!this.#referenced.delete(fd)) {
      closeSync(fd);
      return;
    }
    const batch = this.#batch;
    batch.close.push(fd);
    // A folder's files are listed in a row, so one of this batch is its last folder (or earlier).
    if (!batch.folderFds.includes(fd)) batch.descriptors++;
    if (batch.descriptors >= walkBatchFolders) this.#flush();
  }

  #flush(): void {
    const b = this.#batch;
    this.#batch = building();
    this.post({
      kind: "batch",
      files: {
        fds: Int32Array.from(b.fds),
        names: b.names.join("\0"),
        borrowed: false,
        ...(fsAt !== undefined ? { folderRealPaths: b.reals.join("\0") } : {}),
      },
      folderFds: b.folderFds,
      folderPaths: b.folderPaths,
      close: b.close,
    });
  }
}

/**
 * list reads a folder's entries through its descriptor, sorted by name; undefined if unreadable.
 * The JavaScript path opens the folder once more to list it (Node lists by path only), so it is
 * the path that meets a full descriptor table first; the addon lists the held descriptor itself.
 */
function list(fd: number, relativeDir: string): ListedEntry[] | undefined {
  if (fsAt !== undefined) {
    const listed = fsAt.listDir(fd); // sorted by the addon, in the order of the comparison below
    return listed === null ? undefined : parseListing(listed);
  }
  try {
    return readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch (err) {
    throwIfOutOfDescriptors(err, relativeDir);
    return undefined;
  }
}

/** NativeEntry is one entry of fsAt.listDir's answer, shaped as the Dirent methods the walk calls. */
class NativeEntry implements ListedEntry {
  constructor(
    readonly name: string,
    private readonly kind: string,
  ) {}
  isDirectory(): boolean {
    return this.kind === "d";
  }
  isFile(): boolean {
    return this.kind === "f";
  }
}

/** parseListing splits fsAt.listDir's "<kind><name>\0..." into entries. */
function parseListing(listed: string): NativeEntry[] {
  const entries: NativeEntry[] = [];
  for (let at = 0; at < listed.length; ) {
    const end = listed.indexOf("\0", at);
    if (end === -1) break; // the addon ends every entry with NUL: never
    entries.push(new NativeEntry(listed.slice(at + 1, end), listed[at]!));
    at = end + 1;
  }
  return entries;
}
