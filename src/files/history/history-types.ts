export type { HistoryConfig } from "../../config/config.js";

/** ChangeOperationName is what changed a file, as the log records it. */
export type ChangeOperationName = "write" | "upload" | "edit" | "delete" | "move" | "restore" | "patch";

/** ChangeRecord is one line of a file's change log. */
export interface ChangeRecord {
  /** Milliseconds since the epoch. */
  readonly time: number;
  readonly operation: ChangeOperationName;
  readonly caller: string;
  /** SHA-256 before; "" when the file did not exist. */
  readonly before: string;
  /** SHA-256 after; "" when the change removed the file. */
  readonly after: string;
  readonly sizeBefore: number;
}

/** FileKey names one file across restarts: its root's real path and its real path under it. */
export interface FileKey {
  readonly root: string;
  readonly relative: string;
}
