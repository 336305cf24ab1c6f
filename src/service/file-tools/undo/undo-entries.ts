import path from "node:path";
import { ToolhostError } from "../../../errors/toolhost-error.js";
import type { FileHistory, ListedChange } from "../../../files/history/file-history.js";
import type { ChangeRecord, FileKey } from "../../../files/history/history-types.js";
import { describeState, stateAfter, stateBefore, type PathState } from "../../../files/history/path-state.js";

/**
 * UndoEntry is one path a change touched, which its undo puts back: where the path is (`target`,
 * how the sandbox reaches it; `shown`, how messages name it), what the change found there
 * (`before`: the undo puts it back) and what it left (`after`: the path must hold it still).
 */
export interface UndoEntry {
  readonly target: string;
  readonly shown: string;
  readonly key: FileKey;
  readonly before: PathState;
  readonly after: PathState;
  readonly record: Pick<ChangeRecord, "entriesBefore" | "entriesAfter">;
}

/**
 * UndoneChange is the change an undo puts back: one path, the two paths of a move (`moved`: the
 * entry left `from` and arrived at `to`, and goes back by a move), or every file of a patch.
 * `requested` is the entry of the path the undo was asked for.
 */
export type UndoneChange =
  | { readonly kind: "single"; readonly requested: UndoEntry; readonly entries: readonly UndoEntry[] }
  | { readonly kind: "move"; readonly requested: UndoEntry; readonly from: UndoEntry; readonly to: UndoEntry; readonly entries: readonly UndoEntry[] }
  | { readonly kind: "group"; readonly requested: UndoEntry; readonly entries: readonly UndoEntry[] };

/** undoneChange finds every path the change `last` (the newest record of `clientPath`) touched. */
export async function undoneChange(history: FileHistory, clientPath: string, key: FileKey, last: ListedChange): Promise<UndoneChange> {
  const requested = entryOf(clientPath, clientPath, key, last);
  if (last.moved !== undefined && last.change !== undefined) {
    const otherKey = { root: last.moved.root, relative: last.moved.relative };
    const otherRecord = await history.change(otherKey, last.change);
    if (otherRecord === undefined) {
      throw unavailable(clientPath, `its last change moved it ${last.moved.side === "from" ? "to" : "from"} "${last.moved.path}", whose record of that move is no longer in the history`);
    }
    const other = entryOf(path.join(otherKey.root, otherKey.relative), last.moved.path, otherKey, otherRecord);
    const [from, to] = last.moved.side === "from" ? [requested, other] : [other, requested];
    return { kind: "move", requested, from, to, entries: [requested, other] };
  }
  if (last.operation === "move" && last.typeBefore === undefined) {
    throw unavailable(clientPath, "its last change is a move recorded by an earlier version of toolhost, without the move's other path, so it cannot be moved back");
  }
  if (last.manifest !== undefined) {
    const manifest = await history.manifest(last.manifest);
    const entries = manifest?.entries.map((e) => {
      const mine = e.root === key.root && e.relative === key.relative;
      return { target: mine ? clientPath : path.join(e.root, e.relative), shown: mine ? clientPath : e.path, key: { root: e.root, relative: e.relative }, before: e.before, after: e.after, record: {} };
    });
    const own = entries?.find((e) => e.target === clientPath);
    if (entries === undefined || own === undefined) {
      throw unavailable(clientPath, "its last change touched several files, and the history no longer holds the list of them (pruned as the store's oldest)");
    }
    return { kind: "group", requested: own, entries };
  }
  return { kind: "single", requested, entries: [requested] };
}

function entryOf(target: string, shown: string, key: FileKey, record: ChangeRecord): UndoEntry {
  return { target, shown, key, before: stateBefore(record), after: stateAfter(record), record };
}

/**
 * requireRestorable refuses (UNDO_UNAVAILABLE) an undo that could not put back what the change
 * found at `entry`, or would have to take away something it cannot store: the content before
 * over max_file_bytes or pruned, a link, a folder that had entries in it. `comesBack` is the
 * entry a move took away, which the undo moves back rather than restores.
 */
export async function requireRestorable(history: FileHistory, clientPath: string, entry: UndoEntry, comesBack: boolean, goesBack: boolean): Promise<void> {
  const { before, after } = entry;
  const about = entry.shown === clientPath ? `"${clientPath}"` : `"${entry.shown}" (which its last change also changed)`;
  if (!comesBack) {
    if (before.type === "file" && (before.sha256 === "" || !(await history.stored(before.sha256)))) {
      const size = before.sha256 === "" ? "of unknown content" : `of ${before.size} bytes`;
      throw unavailable(clientPath, `the file ${about} held before its last change (${size}) is not in the history (over history.max_file_bytes, ${history.config.maxFileBytes} bytes, or pruned as the store's oldest), so undoing would lose what is there now without putting that back`);
    }
    if (before.type === "directory" && (entry.record.entriesBefore ?? 0) > 0) {
      throw unavailable(clientPath, `its last change removed the folder ${about} with ${entry.record.entriesBefore} entries in it, and undo puts back only empty folders`);
    }
    if (before.type === "symlink" || before.type === "other") {
      throw unavailable(clientPath, `${about} held ${describeState(before)} before its last change, which undo does not make`);
    }
  }
  if (!goesBack) {
    if (after.type === "directory" && (entry.record.entriesAfter ?? 0) > 0) {
      throw unavailable(clientPath, `its last change made the folder ${about} with ${entry.record.entriesAfter} entries in it, and undo removes only empty folders; RemoveDirectory removes it`);
    }
    if (after.type === "symlink" || after.type === "other") {
      throw unavailable(clientPath, `its last change left ${describeState(after)} at ${about}, which undo would remove and cannot put back`);
    }
  }
}

/** unavailable is UNDO_UNAVAILABLE for `clientPath`, saying why and that nothing changed. */
export function unavailable(clientPath: string, why: string): ToolhostError {
  return new ToolhostError(
    "UNDO_UNAVAILABLE",
    `Cannot undo the last change of "${clientPath}": ${why}. Nothing was changed; ListFileHistory shows the changes, and RestoreFile or WriteFile put back a content explicitly.`,
    { path: clientPath },
  );
}

/** changedSince is PRECONDITION_FAILED for an undo whose path no longer holds what the change left. */
export function changedSince(clientPath: string, entry: UndoEntry, now: string): ToolhostError {
  const about = entry.shown === clientPath ? `"${clientPath}"` : `"${entry.shown}", which its last change also changed,`;
  // The path's own last change is the newest this history has of it: whatever changed the path
  // since was not recorded here (typically a replica with a history of its own).
  const why =
    entry.shown === clientPath
      ? ", so it was changed since by a change this server's history did not record: another replica with a history of its own (replicas share one history only through one TOOLHOST_STATE_DIR), or a program outside toolhost; nothing was changed. ListFileHistory shows what this history recorded; RestoreFile puts back one of those contents."
      : "; nothing was changed. Undo the later change first, or put back a content with RestoreFile.";
  return new ToolhostError(
    "PRECONDITION_FAILED",
    `Cannot undo the last change of "${clientPath}": ${about} is no longer as that change left it (it left ${describeState(entry.after)}, and ${now})${why}`,
    { path: clientPath, changed: entry.shown },
  );
}
