/** WatchRequest is a WatchFiles call as the domain sees it. */
export interface WatchRequest {
  readonly path: string;
  readonly recursive?: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly initialSnapshot?: boolean;
  readonly includeHidden?: boolean;
}

/** WatchLimits are the server's bounds on a watch (from Config.limits). */
export interface WatchLimits {
  readonly maxWatches: number;
  readonly maxWatchesPerCaller: number;
  readonly maxWatchedFoldersPerStream: number;
  readonly maxWatchedFoldersPerCaller: number;
  readonly maxWatchedFolders: number;
  readonly maxWatchedEntriesPerStream: number;
  readonly maxWatchedEntriesPerCaller: number;
  readonly maxWatchedEntries: number;
  readonly watchQueueEvents: number;
}

/** EntryKind is what an event's entry is. */
export type EntryKind = "file" | "directory" | "symlink" | "other" | "unknown";

/** WatchEventValue is one event of a watch stream; paths are client paths. */
export type WatchEventValue =
  | {
      readonly type: "created" | "modified" | "deleted";
      readonly path: string;
      readonly kind: EntryKind;
      readonly size: number;
      readonly hardLinked: boolean;
    }
  | {
      readonly type: "renamed";
      readonly path: string;
      readonly oldPath: string;
      readonly kind: EntryKind;
      readonly size: number;
      readonly hardLinked: boolean;
    }
  | { readonly type: "snapshot-done" | "ready" | "overflow" };

/** TreeChange is one change a WatchTree sends: paths below the watched folder. */
export type TreeChange =
  | { readonly type: "created" | "modified" | "deleted"; readonly rel: string; readonly entry: Seen }
  | { readonly type: "renamed"; readonly rel: string; readonly oldRel: string; readonly entry: Seen };

/** Seen is an entry as an lstat through its verified folder found it (size and time as seenOf may report them). */
export interface Seen {
  readonly ino: number;
  readonly dev: number;
  readonly kind: EntryKind;
  /** Bytes of a file; 0 otherwise, and when withheld (hardLinked). */
  readonly size: number;
  /** 0 when withheld. */
  readonly mtimeMs: number;
  /** A regular file with other hard links: its size and time are withheld (entryMetadata). */
  readonly hardLinked: boolean;
}
