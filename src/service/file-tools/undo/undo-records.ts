import type { FileHistory } from "../../../files/history/file-history.js";
import type { ChangeRecord, FilePlace } from "../../../files/history/history-types.js";
import { entryIdentity, holds, type PathState } from "../../../files/history/path-state.js";
import { recordOf } from "../../../files/history/record-of.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { absoluteOf } from "../history-place.js";
import type { UndoEntry, UndoneChange } from "./undo-entries.js";
import { placesOf, type UndoStep } from "./undo-steps.js";

/** PlannedRecord is one log record an undo writes once its steps are done, and where. */
export interface PlannedRecord {
  readonly place: FilePlace;
  readonly record: ChangeRecord;
}

/** UndoIds are the names an undo's records carry: the caller, its change id, and its manifest (a change of several paths). */
export interface UndoIds {
  readonly caller: string;
  readonly change: string;
  readonly manifest?: string | undefined;
}

/**
 * undoRecords are the records of an undo, planned before its first step: one change of the same
 * paths, each from what the undo found there (`found`) to what it puts back, a move the other way
 * for a move (so undoing the undo redoes the change).
 */
export function undoRecords(change: UndoneChange, found: (e: UndoEntry) => PathState, ids: UndoIds): PlannedRecord[] {
  const { caller, change: id, manifest } = ids;
  if (change.kind === "move") {
    const { from, to } = change;
    // The entry now leaves `to` (which gets back what it held) and arrives at `from` again.
    return [
      {
        place: to.key,
        record: recordOf("restore", caller, found(to), to.before, {
          change: id,
          moved: { side: "from", root: from.root, relative: from.relative, path: from.shown },
        }),
      },
      {
        place: from.key,
        record: recordOf("restore", caller, found(from), found(to), {
          change: id,
          moved: { side: "to", root: to.root, relative: to.relative, path: to.shown },
        }),
      },
    ];
  }
  return change.entries.map((e) => ({
    place: e.key,
    record: recordOf("restore", caller, found(e), e.before, {
      change: id,
      manifest,
      entriesBefore: e.record.entriesAfter,
      entriesAfter: e.record.entriesBefore,
    }),
  }));
}

/**
 * partialRecords record what the first steps of an undo did when the rest could neither be done
 * nor taken back: each path they changed, from what it held before the first of them to what the
 * last left, as a change of its own, so nothing the undo took away is outside the history.
 */
export function partialRecords(steps: readonly UndoStep[], caller: string, change: string): PlannedRecord[] {
  const touched = new Map<string, { place: FilePlace; from: PathState; to: PathState }>();
  for (const step of steps) {
    for (const { place, from, to } of placesOf(step)) {
      const id = absoluteOf(place);
      touched.set(id, {
        place: { root: place.root, relative: place.relative },
        from: touched.get(id)?.from ?? from,
        to,
      });
    }
  }
  return [...touched.values()]
    .filter((t) => !(holds(t.from, t.to) && holds(t.to, t.from)))
    .map((t) => ({ place: t.place, record: recordOf("restore", caller, t.from, t.to, { change }) }));
}

/**
 * writeRecords appends an undo's records. A folder the undo made is recorded as the folder now
 * there (its identity and mode), not the one it was made in place of. Never throws: the undo is
 * done, and a line that cannot be written is dropped as every change's is.
 */
export async function writeRecords(
  history: FileHistory,
  sandbox: Sandbox,
  records: readonly PlannedRecord[],
): Promise<void> {
  for (const { place, record } of records) {
    let written = record;
    if (record.typeAfter === "directory") {
      const entry = await sandbox.openEntry(absoluteOf(place)).catch(() => undefined);
      if (entry !== undefined) {
        entry.handle.close();
        written = { ...record, idAfter: entryIdentity(entry.stats), modeAfter: entry.stats.mode & 0o777 };
      }
    }
    const key = await history.keyAt(place).catch(() => undefined);
    if (key !== undefined) await history.record(key, written).catch(() => undefined);
  }
}
