import type { FSWatcher } from "node:fs";
import type { Seen } from "./watch-types.js";

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
/** ScanJob is a folder to list: found in `parent` under `name`, expected to be `expect`. */
export interface ScanJob {
  readonly parent: WatchedFolder | undefined;
  readonly name: string;
  readonly expect: Seen | undefined;
  /** Send each entry found as created (a snapshot, or a folder that appeared after READY). */
  readonly emit: boolean;
}

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

  /** restore puts names back after a failed check, for the folder's next batch. */
  restore(dirty: Dirty): void {
    if (dirty === "all") this.dirty = "all";
    else for (const [name, changed] of dirty) this.mark(name, changed);
  }

  /** detach takes the folder out of its parent's children (a move or removal records it elsewhere). */
  detach(): void {
    if (this.parent?.children.get(this.name) === this) this.parent.children.delete(this.name);
  }

  /** isWithin tells whether this folder is `ancestor` or lies below it. */
  isWithin(ancestor: WatchedFolder): boolean {
    for (let f: WatchedFolder | undefined = this; f !== undefined; f = f.parent) if (f === ancestor) return true;
    return false;
  }

  /** isDirty tells whether the folder has names to check. */
  get isDirty(): boolean {
    return this.dirty === "all" || this.dirty.size > 0;
  }
}
