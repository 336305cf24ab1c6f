import { constants, lstatSync } from "node:fs";
import { type FsAt, fsAt } from "./native/fs-at.js";
import type { OpenedDirectory } from "./open-directory.js";
import { childPath } from "./path-handle.js";

/** EntryStats is what a listing reads of an entry's lstat; a node:fs Stats is one. */
export interface EntryStats {
  readonly mode: number;
  readonly nlink: number;
  readonly size: number;
  readonly mtime: Date;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * entryLookup holds the addon's lstatAt (undefined without the addon): a property, so that a test
 * can see which entries are looked up in place (mounted-below-root.test.ts); the addon's own
 * functions cannot be replaced.
 */
export const entryLookup: { lstatAt: FsAt["lstatAt"] | undefined } = { lstatAt: fsAt?.lstatAt };

/** out receives the addon's answer (one call at a time: this runs on the calling thread). */
const out = new Float64Array(5);

/**
 * lstatEntrySync is the lstat of the entry `name` of a verified directory, on the calling thread
 * (the caller decides it may: sync-io-policy.ts), undefined when it is gone or cannot be looked
 * at. With the native addon it is an fstatat relative to the directory's descriptor; without, an
 * lstat of `${dir.path}/${name}`: the same entry of the same held directory either way.
 */
export function lstatEntrySync(dir: OpenedDirectory, name: string): EntryStats | undefined {
  const lstatAt = entryLookup.lstatAt;
  if (lstatAt !== undefined) {
    if (lstatAt(dir.fd, name, out) !== 0) return undefined;
    // As node:fs makes mtime: milliseconds from seconds and nanoseconds, rounded.
    return new NativeEntryStats(out[0]!, out[1]!, out[2]!, new Date(Math.round(out[3]! * 1000 + out[4]! / 1e6)));
  }
  try {
    return lstatSync(childPath(dir.path, name));
  } catch {
    return undefined;
  }
}

const { S_IFMT, S_IFREG, S_IFDIR, S_IFLNK } = constants;

/** NativeEntryStats is an fstatat's answer with the Stats methods a listing calls. */
class NativeEntryStats implements EntryStats {
  constructor(
    readonly mode: number,
    readonly nlink: number,
    readonly size: number,
    readonly mtime: Date,
  ) {}

  isFile(): boolean {
    return (this.mode & S_IFMT) === S_IFREG;
  }

  isDirectory(): boolean {
    return (this.mode & S_IFMT) === S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & S_IFMT) === S_IFLNK;
  }
}
