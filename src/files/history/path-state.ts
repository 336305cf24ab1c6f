import type { ChangeRecord, EntryType } from "./history-types.js";

/**
 * PathState is what one path held at one moment: its type and, for a regular file, its content's
 * SHA-256 ("" when not known) and size. A change record holds two, before and after.
 */
export interface PathState {
  readonly type: EntryType;
  readonly sha256: string;
  readonly size: number;
  /** Permission bits (0 to 0o777) of a file or folder, where known: an undo makes it again with them. */
  readonly mode?: number | undefined;
  /**
   * Identity of a folder, where known (entryIdentity: device, inode and birth time): a folder
   * removed and made again at the same path is another folder, whatever it holds.
   */
  readonly id?: string | undefined;
}

/** nothingThere is the state of a path with no entry. */
export const nothingThere: PathState = Object.freeze({ type: "none", sha256: "", size: 0 });

/**
 * stateBefore is what a record says the path held before its change. Records of older versions
 * carry no types: their `before` was "" both for a path that was empty and for a file whose
 * content was over max_file_bytes (they recorded no hash then). A delete, and the `from` side of
 * a move (its `after` is ""), always had a file there: its content is taken as unknown, which no
 * undo restores; any other operation with no hash before had created the file.
 */
export function stateBefore(record: ChangeRecord): PathState {
  const type =
    record.typeBefore ??
    (record.before !== "" || record.operation === "delete" || (record.operation === "move" && record.after === "")
      ? "file"
      : "none");
  return withExtras(
    { type, sha256: type === "file" ? record.before : "", size: record.sizeBefore },
    record.modeBefore,
    record.idBefore,
  );
}

/** stateAfter is what a record says its change left at the path (older records: see stateBefore). */
export function stateAfter(record: ChangeRecord): PathState {
  const type = record.typeAfter ?? (record.after !== "" ? "file" : "none");
  return withExtras(
    { type, sha256: type === "file" ? record.after : "", size: record.sizeAfter ?? 0 },
    record.modeAfter,
    record.idAfter,
  );
}

function withExtras(state: PathState, mode: number | undefined, id: string | undefined): PathState {
  return { ...state, ...(mode === undefined ? {} : { mode }), ...(id === undefined ? {} : { id }) };
}

/**
 * holds tells whether a path that holds `current` is as `expected` says: the same type, for a
 * file the same content, for a folder the same folder (when both identities are known). A file
 * whose expected content is not known matches nothing. Modes are not compared.
 */
export function holds(current: PathState, expected: PathState): boolean {
  if (current.type !== expected.type) return false;
  if (current.type === "directory")
    return current.id === undefined || expected.id === undefined || current.id === expected.id;
  return current.type !== "file" || (expected.sha256 !== "" && current.sha256 === expected.sha256);
}

/**
 * entryIdentity names the very entry `stats` describes: device, inode and birth time, so that an
 * inode number the filesystem hands out again (ext4 does at once) is not taken for the old entry.
 */
export function entryIdentity(stats: {
  readonly dev: number | bigint;
  readonly ino: number | bigint;
  readonly birthtimeMs: number;
}): string {
  return `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
}

/** describeState words a state for a message: "nothing", "a folder", "a file with sha256 1a2b3c4d…". */
export function describeState(state: PathState): string {
  switch (state.type) {
    case "none":
      return "nothing";
    case "file":
      return state.sha256 === "" ? "a file of unknown content" : `a file with sha256 ${state.sha256.slice(0, 12)}…`;
    case "directory":
      return "a folder";
    case "symlink":
      return "a symbolic link";
    default:
      return "a FIFO, socket or device";
  }
}
