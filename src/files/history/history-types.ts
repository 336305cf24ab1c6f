export type { HistoryConfig } from "../../config/config.js";

/** ChangeOperationName is what changed a path, as the log records it. */
export type ChangeOperationName =
  | "write"
  | "upload"
  | "edit"
  | "delete"
  | "move"
  | "restore"
  | "patch"
  | "copy"
  | "mkdir"
  | "rmdir";

/** EntryType is what a path held: nothing, a regular file, a folder, a symbolic link, or something else (a FIFO, a device). */
export type EntryType = "none" | "file" | "directory" | "symlink" | "other";

/**
 * MovedCounterpart names the other path of a move: where the file went (this record is the
 * move's `from` side) or where it came from (`to`). Both sides' records carry the same change id.
 */
export interface MovedCounterpart extends FilePlace {
  readonly side: "from" | "to";
  /** The other path as the caller of the move named it (records of earlier versions; answers name the place in their own caller's form). */
  readonly path: string;
}

/** ChangeRecord is one line of a path's change log. */
export interface ChangeRecord {
  /** Milliseconds since the epoch. */
  readonly time: number;
  readonly operation: ChangeOperationName;
  readonly caller: string;
  /** SHA-256 of the file before; "" when it was not a file, or its content is not known. */
  readonly before: string;
  /** SHA-256 of the file after; "" when the change left no file there. */
  readonly after: string;
  readonly sizeBefore: number;
  /**
   * What the path held before and after. Records written before these fields existed have
   * neither; path-state.ts derives them from the operation and the hashes.
   */
  readonly typeBefore?: EntryType | undefined;
  readonly typeAfter?: EntryType | undefined;
  readonly sizeAfter?: number | undefined;
  /** Permission bits of what the path held before and after, where the change knew them (see PathState.mode). */
  readonly modeBefore?: number | undefined;
  readonly modeAfter?: number | undefined;
  /** Identity of a folder before and after (see PathState.id). */
  readonly idBefore?: string | undefined;
  readonly idAfter?: string | undefined;
  /** Shared by every record of one change: both paths of a move, every file of a patch. */
  readonly change?: string | undefined;
  /** For a move (MoveFile, or the undo of one): the other path. */
  readonly moved?: MovedCounterpart | undefined;
  /** For a change of several files (a patch): the SHA-256 of its manifest in the blob store. */
  readonly manifest?: string | undefined;
  /**
   * For a folder before or after the change (RemoveDirectory, CopyFile of a folder): how many
   * entries were below it. Undo makes or removes only an empty folder.
   */
  readonly entriesBefore?: number | undefined;
  readonly entriesAfter?: number | undefined;
}

/** FilePlace is where a path lies: its root's real path and its real path under it. */
export interface FilePlace {
  readonly root: string;
  readonly relative: string;
}

/**
 * FileKey names one file's history: its place, and the identity of the root folder it lies in
 * (root-identity.ts), so that a folder made again at a root's path starts with no history.
 */
export interface FileKey extends FilePlace {
  readonly rootId: string;
}
