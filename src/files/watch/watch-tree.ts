import { ToolhostError, isToolhostError } from "../../errors/toolhost-error.js";
import { notFoundError } from "../../sandbox/sandbox-errors.js";
import { checkFolder, type CheckContext, type Place } from "./check-folder.js";
import type { FairTurns } from "./fair-turns.js";
import { listInSlices } from "./list-in-slices.js";
import { QuietWindow } from "./quiet-window.js";
import { pairChanges, sameInode, treeChangeOf, type EntryDiff } from "./pair-changes.js";
import type { StreamBudget } from "./watch-budget.js";
import type { TreeChange } from "./watch-types.js";
import { closeFolder, joinReal, openFolder, placeWatch, type WatchRoot } from "./held-folder.js";
import { type Dirty, type ScanJob, WatchedFolder } from "./watched-folder.js";

export type { TreeChange } from "./watch-types.js";

/** maxDepth is how many folder levels below the watched folder a recursive watch goes. */
const maxDepth = 99;

/** WatchTreeOptions configure one stream's WatchTree. */
export interface WatchTreeOptions {
  /** The watched folder's real path (for a file: the file's folder). */
  readonly top: string;
  /** The root it lies in. */
  readonly root: WatchRoot;
  /** For a watched file: its name in `top`, the one entry reported. */
  readonly only: string | undefined;
  readonly clientPath: string;
  readonly recursive: boolean;
  /** Names never tracked: toolhost's temporary files, .git, hidden ones unless asked for. */
  readonly skipName: (name: string) => boolean;
  readonly exclude: ((rel: string, name: string) => boolean) | undefined;
  readonly budget: StreamBudget;
  readonly turns: FairTurns;
  /** Aborted when the stream ends: every wait for a turn stops. */
  readonly signal: AbortSignal;
  readonly onChange: (change: TreeChange) => void;
  /** The watch is over: the watched folder (or file) is gone, or `error`. Called once. */
  readonly onEnd: (error?: unknown) => void;
}

/**
 * WatchTree is one WatchFiles stream's view of its tree: an inotify watch (node's fs.watch) on
 * each folder, placed through a descriptor opened and verified first (its kernel path is the
 * expected real path, it is the expected inode), and what is known of every entry.
 *
 * A watch reports only names. Names reported are checked in batches: once the watch has been
 * quiet for a moment (QuietWindow), each folder with names is opened and verified again
 * (checkFolder), every name lstat'ed through that descriptor and compared with what was known
 * (pairChanges). So every event describes an entry seen through a verified folder, an
 * atomic save's temporary name never shows (it is skipped) while its rename over the target is
 * one modification, and a burst is one batch carrying the final state. All filesystem work runs
 * a slice at a time on the server's FairTurns, and every folder and entry kept is taken from the
 * stream's budget first.
 */
export class WatchTree {
  readonly #o: WatchTreeOptions;
  readonly #folders = new Set<WatchedFolder>();
  #top: WatchedFolder | undefined;
  /** Listed folders with names to check. */
  readonly #dirty = new Set<WatchedFolder>();
  /** Folders that failed their check (moved, swapped): checked again with the next batch. */
  readonly #stale = new Set<WatchedFolder>();
  #topSelf = false;
  #ready = false;
  #ended = false;
  readonly #window = new QuietWindow(
    () => this.#ready && !this.#ended && (this.#dirty.size > 0 || this.#topSelf),
    () => this.#batch().catch((err: unknown) => this.#end(err)),
  );
  readonly #scans: ScanJob[] = [];
  #scanning: Promise<void> | undefined;
  #scanRunning = false;

  readonly #checking: CheckContext;

  constructor(options: WatchTreeOptions) {
    this.#o = options;
    this.#checking = {
      top: options.top,
      root: options.root,
      turns: options.turns,
      owner: options.budget.caller,
      signal: options.signal,
      skip: (folder, name) => this.#skipEntry(folder, name),
      stopped: () => this.#ended,
    };
  }

  /** start watches the folder (and, if recursive, every folder below it), sending its entries as created when `snapshot`; resolves once set up. */
  async start(snapshot: boolean): Promise<void> {
    this.#enqueue({ parent: undefined, name: "", expect: undefined, emit: snapshot });
    await this.#scanning;
  }

  /** ready starts sending changes: those reported during the set-up are checked now. */
  ready(): void {
    this.#ready = true;
    this.#window.open();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** close removes every inotify watch (idempotent); the stream's budget is given back by its owner. */
  close(): void {
    this.#ended = true;
    this.#window.stop();
    for (const folder of this.#folders) this.#closeOne(folder);
  }

  #end(error?: unknown): void {
    if (this.#ended) return;
    this.close();
    this.#o.onEnd(
      error === undefined || isToolhostError(error) || this.#o.signal.aborted
        ? error
        : new ToolhostError(
            "IO_ERROR",
            `Watching ${this.#o.clientPath} failed: ${(error as Error).message}`,
            {},
            { cause: error },
          ),
    );
  }

  #skipEntry(folder: WatchedFolder, name: string): boolean {
    const { only, skipName, exclude } = this.#o;
    if (only !== undefined) return name !== only;
    return skipName(name) || exclude?.(folder.relOf(name), name) === true;
  }

  // --- set-up: folders are scanned one at a time, each listing a slice per turn ---

  #enqueue(job: ScanJob): void {
    this.#scans.push(job);
    if (!this.#scanRunning) this.#scanning = this.#runScans();
  }

  async #runScans(): Promise<void> {
    this.#scanRunning = true;
    try {
      while (this.#scans.length > 0 && !this.#ended) await this.#scan(this.#scans.shift()!);
    } catch (err) {
      this.#end(err);
    } finally {
      this.#scanRunning = false;
    }
  }

  async #scan(job: ScanJob): Promise<void> {
    const { top, turns, budget, signal, recursive, clientPath } = this.#o;
    const owner = budget.caller;
    const parent = job.parent;
    if (parent?.closed === true) return;
    const real = parent === undefined ? top : joinReal(top, parent.relOf(job.name));
    const held = await turns.run(owner, () => openFolder(real, this.#o.root, job.expect), signal);
    if (held === undefined) {
      if (parent === undefined) throw notFoundError(clientPath);
      return; // moved or swapped since it was listed: its parent's watch reports that
    }
    try {
      // The parent may have changed since the job was queued (its batch then reports it).
      if (
        parent !== undefined &&
        (parent.closed || parent.children.has(job.name) || !sameInode(held.stats, parent.entries.get(job.name)))
      )
        return;
      budget.take("folders");
      const folder = new WatchedFolder(parent, job.name, held.stats.ino, held.stats.dev);
      this.#folders.add(folder);
      if (parent === undefined) this.#top = folder;
      else parent.children.set(job.name, folder);
      folder.watcher = placeWatch(
        held.fd,
        this.#o.clientPath,
        (type, name) => this.#raw(folder, type, name),
        (err) => this.#end(err),
      );
      const depth = folder.depth;
      await listInSlices(
        held,
        turns,
        owner,
        signal,
        (name) => this.#skipEntry(folder, name),
        (slice) => {
          if (folder.closed || this.#ended) return false;
          for (const { name, seen } of slice) {
            budget.take("entries");
            folder.entries.set(name, seen);
            if (job.emit) this.#o.onChange({ type: "created", rel: folder.relOf(name), entry: seen });
            if (seen.kind === "directory" && recursive && depth < maxDepth)
              this.#scans.push({ parent: folder, name, expect: seen, emit: job.emit });
          }
          return true;
        },
      );
      if (parent === undefined && this.#o.only !== undefined && !folder.entries.has(this.#o.only)) {
        throw notFoundError(clientPath);
      }
      folder.listed = true;
      if (folder.isDirty) this.#dirty.add(folder);
      this.#window.open();
    } finally {
      await closeFolder(held);
    }
  }

  // --- changes: names reported are checked in batches ---

  #raw(folder: WatchedFolder, type: string, name: string | null): void {
    if (this.#ended || folder.closed) return;
    if (name === null || name === ".") {
      if (folder === this.#top) {
        this.#topSelf = true;
        this.#window.open();
      }
      return;
    }
    if (this.#skipEntry(folder, name)) return;
    folder.mark(name, type === "change");
    if (folder.listed) this.#dirty.add(folder);
    this.#window.changed();
  }

  async #batch(): Promise<void> {
    const top = this.#top!;
    const folders = [...new Set([...this.#dirty, ...this.#stale])].filter((f) => !f.closed);
    this.#dirty.clear();
    this.#stale.clear();
    if (this.#topSelf && !folders.includes(top)) folders.push(top);
    this.#topSelf = false;
    folders.sort((a, b) => a.depth - b.depth);
    const taken = new Map<WatchedFolder, Dirty>();
    for (const folder of folders) {
      taken.set(folder, folder.dirty);
      folder.dirty = new Map();
    }
    const diffs: EntryDiff<Place>[] = [];
    const unverified: WatchedFolder[] = [];
    for (const folder of folders) {
      if (this.#ended) return;
      if (await checkFolder(folder, taken.get(folder)!, this.#checking, diffs)) continue;
      if (folder === top) return this.#topGone(folders, taken);
      unverified.push(folder);
      folder.restore(taken.get(folder)!);
    }
    if (!this.#ended) this.#apply(diffs, unverified);
  }

  /** topGone ends the watch when the watched folder is no longer where it was: its entries reported gone are sent as deleted first. */
  #topGone(folders: readonly WatchedFolder[], taken: ReadonlyMap<WatchedFolder, Dirty>): void {
    const gone: TreeChange[] = [];
    for (const folder of [...folders].reverse()) {
      const dirty = taken.get(folder)!;
      for (const [name, entry] of folder.entries) {
        if (dirty === "all" || dirty.has(name) || this.#o.only !== undefined)
          gone.push({ type: "deleted", rel: folder.relOf(name), entry });
      }
    }
    for (const change of gone) this.#o.onChange(change);
    this.#end();
  }

  /** apply records a batch's diffs, moves and closes the records of folders renamed or removed, queues new folders, then sends the changes. */
  #apply(diffs: readonly EntryDiff<Place>[], unverified: readonly WatchedFolder[]): void {
    const { budget, recursive } = this.#o;
    const changes = pairChanges(diffs);
    for (const { place, before, after } of diffs) {
      if (after === undefined) {
        place.folder.entries.delete(place.name);
        budget.give("entries");
      } else {
        if (before === undefined) budget.take("entries");
        place.folder.entries.set(place.name, after);
      }
    }
    const moves: { record: WatchedFolder; to: Place }[] = [];
    const fresh: Place[] = [];
    for (const change of changes) {
      if (change.entry.kind !== "directory" || change.type === "deleted" || change.type === "modified") continue;
      const record = change.type === "renamed" ? change.from.folder.children.get(change.from.name) : undefined;
      if (record !== undefined && sameInode(record, change.entry)) moves.push({ record, to: change.place });
      else fresh.push(change.place);
    }
    for (const { record } of moves) record.detach();
    // A record whose name now holds something else (or nothing) is closed, with everything below
    // it; entries reported inside it (an rm -r) were removed with it.
    const inside: TreeChange[] = [];
    for (const { place, after } of diffs) {
      const record = place.folder.children.get(place.name);
      if (record === undefined || (after !== undefined && after.kind === "directory" && sameInode(record, after)))
        continue;
      this.#removedInside(record, inside);
      this.#closeTree(record);
    }
    for (const { record, to } of moves) {
      if (to.folder.closed || !recursive || to.folder.depth + 1 > maxDepth) this.#closeTree(record);
      else {
        const there = to.folder.children.get(to.name);
        if (there !== undefined && there !== record) this.#closeTree(there);
        record.parent = to.folder;
        record.name = to.name;
        to.folder.children.set(to.name, record);
      }
    }
    for (const folder of unverified)
      if (!folder.closed) (moves.some((m) => folder.isWithin(m.record)) ? this.#dirty : this.#stale).add(folder);
    for (const change of inside) this.#o.onChange(change);
    for (const change of changes) this.#o.onChange(treeChangeOf(change));
    if (recursive) {
      for (const place of fresh) {
        const entry = place.folder.entries.get(place.name);
        if (!place.folder.closed && entry?.kind === "directory" && place.folder.depth < maxDepth)
          this.#enqueue({ parent: place.folder, name: place.name, expect: entry, emit: true });
      }
    }
    if (this.#o.only !== undefined && !this.#top!.entries.has(this.#o.only)) this.#end();
  }

  /** removedInside collects, deepest first, the entries of a removed folder's records whose removal was reported. */
  #removedInside(record: WatchedFolder, out: TreeChange[]): void {
    for (const child of record.children.values()) this.#removedInside(child, out);
    const dirty = record.dirty;
    for (const [name, entry] of record.entries)
      if (dirty === "all" || dirty.has(name)) out.push({ type: "deleted", rel: record.relOf(name), entry });
  }

  #closeTree(record: WatchedFolder): void {
    record.detach();
    const stack = [record];
    while (stack.length > 0) {
      const folder = stack.pop()!;
      stack.push(...folder.children.values());
      this.#closeOne(folder);
    }
  }

  #closeOne(folder: WatchedFolder): void {
    if (folder.closed) return;
    folder.closed = true;
    folder.watcher?.close();
    this.#folders.delete(folder);
    this.#dirty.delete(folder);
    this.#stale.delete(folder);
    this.#o.budget.give("folders");
    this.#o.budget.give("entries", folder.entries.size);
  }
}
