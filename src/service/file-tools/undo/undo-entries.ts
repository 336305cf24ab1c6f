import { ToolhostError } from "../../../errors/toolhost-error.js";
import type { FileHistory, ListedChange } from "../../../files/history/file-history.js";
import type { ChangeRecord, FileKey, FilePlace } from "../../../files/history/history-types.js";
import { describeState, stateAfter, stateBefore, type PathState } from "../../../files/history/path-state.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { absoluteOf, shownTo, writableTo } from "../history-place.js";
import type { Place } from "./undo-steps.js";

/**
 * UndoEntry is one path a change touched, which its undo puts back: where the path is (its
 * place; `shown`, how messages and answers name it to this caller), what the change found there (`before`: the undo puts it back) and what it
 * left (`after`: the path must hold it still).
 */
export interface UndoEntry extends Place {
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
  | {
      readonly kind: "move";
      readonly requested: UndoEntry;
      readonly from: UndoEntry;
      readonly to: UndoEntry;
      readonly entries: readonly UndoEntry[];
    }
  | { readonly kind: "group"; readonly requested: UndoEntry; readonly entries: readonly UndoEntry[] };

/**
 * undoneChange finds every path the change `last` (the newest record of `clientPath`) touched.
 * Before anything about another path is looked at, each must lie where this caller may change
 * it (OUT_OF_SCOPE, the same refusal whatever the path holds or its history says); then each
 * must have that change as its own newest (PRECONDITION_FAILED: a later change comes first).
 */
export async function undoneChange(
  history: FileHistory,
  sandbox: Sandbox,
  clientPath: string,
  key: FileKey,
  last: ListedChange,
): Promise<UndoneChange> {
  const requested = entryOf(
    { root: key.root, relative: key.relative, shown: clientPath },
    key,
    stateBefore(last),
    stateAfter(last),
    last,
  );
  if (last.moved !== undefined && last.change !== undefined) {
    const place = { root: last.moved.root, relative: last.moved.relative };
    requireInScope(sandbox, clientPath, [place]);
    const shown = shownTo(sandbox, place) ?? absoluteOf(place);
    const otherKey = await history.keyAt(place);
    const otherRecord = await newestOf(
      history,
      clientPath,
      { ...place, shown },
      otherKey,
      last.change,
      `its last change moved it ${last.moved.side === "from" ? "to" : "from"} "${shown}", whose record of that move is no longer in the history`,
    );
    const other = entryOf(
      { ...place, shown },
      otherKey,
      stateBefore(otherRecord),
      stateAfter(otherRecord),
      otherRecord,
    );
    const [from, to] = last.moved.side === "from" ? [requested, other] : [other, requested];
    return { kind: "move", requested, from, to, entries: [requested, other] };
  }
  if (last.operation === "move" && last.typeBefore === undefined) {
    throw unavailable(
      clientPath,
      "its last change is a move recorded by an earlier version of toolhost, without the move's other path, so it cannot be moved back",
    );
  }
  if (last.manifest !== undefined && last.change !== undefined) {
    const manifest = await history.manifest(last.manifest);
    const own = manifest?.entries.find((e) => e.root === key.root && e.relative === key.relative);
    if (manifest === undefined || own === undefined) {
      throw unavailable(
        clientPath,
        "its last change touched several files, and the history no longer holds the list of them (pruned as the store's oldest)",
      );
    }
    const others = manifest.entries.filter((e) => e !== own);
    requireInScope(sandbox, clientPath, others);
    const entries: UndoEntry[] = [];
    for (const e of manifest.entries) {
      if (e === own) {
        entries.push({ ...requested, before: e.before, after: e.after, record: {} });
        continue;
      }
      const place = { root: e.root, relative: e.relative, shown: shownTo(sandbox, e) ?? absoluteOf(e) };
      const otherKey = await history.keyAt(e);
      await newestOf(
        history,
        clientPath,
        place,
        otherKey,
        last.change,
        `its last change also changed "${place.shown}", whose record of it is no longer in the history`,
      );
      entries.push(entryOf(place, otherKey, e.before, e.after, {}));
    }
    return { kind: "group", requested: entries.find((e) => e.key === key)!, entries };
  }
  return { kind: "single", requested, entries: [requested] };
}

/**
 * requireInScope refuses an undo whose change touched a place this caller may not change, with
 * one answer for every such place: nothing of it (what it holds, its history) is looked at first.
 */
function requireInScope(sandbox: Sandbox, clientPath: string, places: readonly FilePlace[]): void {
  if (places.every((p) => writableTo(sandbox, p))) return;
  throw new ToolhostError(
    "OUT_OF_SCOPE",
    `Cannot undo the last change of "${clientPath}": that change also changed a path outside the roots this call may change; nothing was changed. A caller whose scope can change every path of the change can undo it.`,
    { path: clientPath, lacks: "root" },
  );
}

/** newestOf is another path's record of `change`, which must be that path's newest. */
async function newestOf(
  history: FileHistory,
  clientPath: string,
  place: Place,
  key: FileKey,
  change: string,
  gone: string,
): Promise<ChangeRecord> {
  const records = await history.recordsOf(key);
  const record = records.filter((r) => r.change === change).at(-1);
  if (record === undefined) throw unavailable(clientPath, gone);
  const newest = records.at(-1)!;
  if (newest !== record) {
    throw new ToolhostError(
      "PRECONDITION_FAILED",
      `Cannot undo the last change of "${clientPath}": "${place.shown}", which that change also changed, has changed since (its last change is a ${newest.operation} of ${new Date(newest.time).toISOString()}); nothing was changed. Undo the later change there first.`,
      { path: clientPath, changed: place.shown },
    );
  }
  return record;
}

function entryOf(
  place: Place,
  key: FileKey,
  before: PathState,
  after: PathState,
  record: Pick<ChangeRecord, "entriesBefore" | "entriesAfter">,
): UndoEntry {
  return {
    root: place.root,
    relative: place.relative,
    shown: place.shown,
    key,
    before,
    after,
    record: { entriesBefore: record.entriesBefore, entriesAfter: record.entriesAfter },
  };
}

/**
 * requireRestorable refuses (UNDO_UNAVAILABLE) an undo that could not put back what the change
 * found at `entry`, or would have to take away something it cannot store: the content before
 * over max_file_bytes or pruned, a link, a folder that had entries in it. `comesBack` is the
 * entry a move took away, which the undo moves back rather than restores.
 */
export async function requireRestorable(
  history: FileHistory,
  clientPath: string,
  entry: UndoEntry,
  comesBack: boolean,
  goesBack: boolean,
): Promise<void> {
  const { before, after } = entry;
  const about =
    entry.shown === clientPath ? `"${clientPath}"` : `"${entry.shown}" (which its last change also changed)`;
  if (!comesBack) {
    if (before.type === "file" && (before.sha256 === "" || !(await history.stored(before.sha256)))) {
      const size = before.sha256 === "" ? "of unknown content" : `of ${before.size} bytes`;
      throw unavailable(
        clientPath,
        `the file ${about} held before its last change (${size}) is not in the history (over history.max_file_bytes, ${history.config.maxFileBytes} bytes, or pruned as the store's oldest), so undoing would lose what is there now without putting that back`,
      );
    }
    if (before.type === "directory" && (entry.record.entriesBefore ?? 0) > 0) {
      throw unavailable(
        clientPath,
        `its last change removed the folder ${about} with ${entry.record.entriesBefore} entries in it, and undo puts back only empty folders`,
      );
    }
    if (before.type === "symlink" || before.type === "other") {
      throw unavailable(
        clientPath,
        `${about} held ${describeState(before)} before its last change, which undo does not make`,
      );
    }
  }
  if (!goesBack) {
    if (after.type === "directory" && (entry.record.entriesAfter ?? 0) > 0) {
      throw unavailable(
        clientPath,
        `its last change made the folder ${about} with ${entry.record.entriesAfter} entries in it, and undo removes only empty folders; RemoveDirectory removes it`,
      );
    }
    if (after.type === "symlink" || after.type === "other") {
      throw unavailable(
        clientPath,
        `its last change left ${describeState(after)} at ${about}, which undo would remove and cannot put back`,
      );
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
  const about =
    entry.shown === clientPath ? `"${clientPath}"` : `"${entry.shown}", which its last change also changed,`;
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
