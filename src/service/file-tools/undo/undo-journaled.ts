import type { FileHistory } from "../../../files/history/file-history.js";
import type { FilePlace } from "../../../files/history/history-types.js";
import { holds } from "../../../files/history/path-state.js";
import type { JournalBody, OpenJournal } from "../../../files/history/undo-journal.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { absoluteOf, writableTo } from "../history-place.js";
import { partialRecords, writeRecords, type PlannedRecord } from "./undo-records.js";
import { placesOf, runSteps, type StepContext, type UndoStep } from "./undo-steps.js";

/**
 * UndoJournalBody is what an undo's journal says (undo-journal.ts keeps it): where it was asked
 * for, the change id its records carry, its steps and how many are done, the records to write
 * once all are, and the stored contents it relies on (pinned while the journal is there).
 */
export interface UndoJournalBody extends JournalBody {
  readonly version: 1;
  readonly clientPath: string;
  readonly requested: FilePlace;
  readonly caller: string;
  readonly change: string;
  readonly steps: readonly UndoStep[];
  readonly done: number;
  readonly records: readonly PlannedRecord[];
}

/** parseJournal reads a journal back; undefined for one that is not an undo's of this version. */
export function parseJournal(value: unknown): UndoJournalBody | undefined {
  const body = value as Partial<UndoJournalBody> | null;
  if (typeof body !== "object" || body === null || body.version !== 1) return undefined;
  const ok =
    typeof body.clientPath === "string" &&
    typeof body.caller === "string" &&
    typeof body.change === "string" &&
    typeof body.done === "number";
  return ok &&
    Array.isArray(body.steps) &&
    Array.isArray(body.records) &&
    Array.isArray(body.pins) &&
    typeof body.requested?.root === "string"
    ? (body as UndoJournalBody)
    : undefined;
}

/**
 * completeUndo makes an undo's steps from `from` on, its journal saying after each how many are
 * done, then writes its records. Should a step fail, those before it are taken back (runSteps),
 * and what could not be taken back is recorded as it is (partialRecords), so that whatever the
 * undo took away stays in the history; the error goes on to the caller. The journal is the
 * caller's to end.
 */
export async function completeUndo(
  ctx: StepContext,
  journal: OpenJournal<UndoJournalBody>,
  from: number,
): Promise<void> {
  const body = journal.body;
  let inEffect = from;
  try {
    await runSteps(
      ctx,
      body.steps,
      async (done) => {
        inEffect = done;
        await journal.write({ ...journal.body, done });
      },
      from,
    );
  } catch (err) {
    if (inEffect > 0)
      await writeRecords(
        ctx.history,
        ctx.sandbox,
        requestedLast(body, partialRecords(body.steps.slice(0, inEffect), body.caller, body.change)),
      );
    throw err;
  }
  await writeRecords(ctx.history, ctx.sandbox, requestedLast(body, body.records));
}

/**
 * requestedLast orders an undo's records so that the asked-for path's comes last: recovery takes
 * that one, once written, for the undo's being recorded whole (recoverUndos).
 */
function requestedLast(body: UndoJournalBody, records: readonly PlannedRecord[]): PlannedRecord[] {
  const isRequested = (r: PlannedRecord) =>
    r.place.root === body.requested.root && r.place.relative === body.requested.relative;
  return [...records.filter((r) => !isRequested(r)), ...records.filter(isRequested)];
}

/** RecoveredUndo says what became of an undo a server left unfinished. */
export interface RecoveredUndo {
  readonly clientPath: string;
  /** completed: every step made and recorded; stopped: a path changed meanwhile, and the steps made were taken back, or recorded as they are (the message says). */
  readonly outcome: "completed" | "recorded already" | "stopped" | "failed";
  readonly message?: string | undefined;
}

/**
 * recoverUndos finishes the undos that servers sharing the history folder left unfinished (killed
 * between two steps): each journal whose writer is gone and whose paths this sandbox may change
 * is taken over and completed from where it stopped, or, where a path was changed meanwhile, its
 * done steps are taken back; either way its records are written. Run at start-up and before
 * each undo. Never throws.
 */
export async function recoverUndos(
  history: FileHistory,
  sandbox: Sandbox,
  maxPathDepth: number,
): Promise<RecoveredUndo[]> {
  const inScope = (body: UndoJournalBody) =>
    [body.requested, ...body.steps.flatMap((s) => placesOf(s).map((p) => p.place))].every((p) =>
      writableTo(sandbox, p),
    );
  const pending = await history.journals
    .pending((value) => {
      const body = parseJournal(value);
      return body !== undefined && inScope(body) ? body : undefined;
    })
    .catch(() => []);
  const out: RecoveredUndo[] = [];
  for (const journal of pending) {
    const body = journal.body;
    const ctx: StepContext = { sandbox, history, clientPath: body.clientPath, maxPathDepth };
    const releasePins = history.pin(body.pins);
    try {
      const newest = (await history.recordsOf(await history.keyAt(body.requested))).at(-1);
      if (newest?.change === body.change) {
        out.push({ clientPath: body.clientPath, outcome: "recorded already" });
        continue;
      }
      // The step the journal does not yet count as done may have been made before the kill.
      const next = body.steps[body.done];
      const from = next !== undefined && (await inEffect(ctx, next)) ? body.done + 1 : body.done;
      await completeUndo(ctx, journal, from).then(
        () => out.push({ clientPath: body.clientPath, outcome: "completed" }),
        (err: unknown) =>
          out.push({ clientPath: body.clientPath, outcome: "stopped", message: (err as Error).message }),
      );
    } catch (err) {
      out.push({ clientPath: body.clientPath, outcome: "failed", message: (err as Error).message });
    } finally {
      releasePins();
      await journal.end();
    }
  }
  return out;
}

/** inEffect tells whether every path a step changes holds what the step leaves there. */
async function inEffect(ctx: StepContext, step: UndoStep): Promise<boolean> {
  for (const { place, to } of placesOf(step)) {
    const now = await ctx.history
      .capture(ctx.sandbox, absoluteOf(place), { entry: true, hashUnstored: true })
      .catch(() => undefined);
    if (now === undefined || !holds(now, to)) return false;
  }
  return true;
}
