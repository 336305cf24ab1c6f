import path from "node:path";
import type { HandlerContext } from "@connectrpc/connect";
import { ToolhostError } from "../../../errors/toolhost-error.js";
import type { CapturedContent, FileHistory, ListedChange } from "../../../files/history/file-history.js";
import { describeState, holds, type PathState } from "../../../files/history/path-state.js";
import { newChangeId } from "../../../files/history/record-of.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { requireTier, undoTier } from "../../method-tiers.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { absoluteOf } from "../history-place.js";
import { callerOf } from "../recorded-change.js";
import {
  changedSince,
  requireRestorable,
  unavailable,
  undoneChange,
  type UndoEntry,
  type UndoneChange,
} from "./undo-entries.js";
import { completeUndo, recoverUndos, type UndoJournalBody } from "./undo-journaled.js";
import { undoRecords } from "./undo-records.js";
import { moveBackSteps, type Place, type StepContext, type UndoStep } from "./undo-steps.js";

/** UndoResult is what an undo did: the change it undid, and what the asked-for path holds now. */
export interface UndoResult {
  readonly undone: ListedChange;
  readonly removed: boolean;
  readonly sha256: string;
  readonly otherPaths: readonly string[];
}

/**
 * undoLastChange undoes the newest recorded change of `clientPath` (of the entry itself: a link's
 * own history, not its target's) as a whole: at every path that change touched (both paths of a
 * move, every file of a patch), what it found there is put back, and a move is moved back. It
 * never loses content, so in this order, before anything changes:
 *
 * 1. every other path must lie where the caller may change it (OUT_OF_SCOPE, nothing else said
 *    about it), and have that change as its newest (PRECONDITION_FAILED);
 * 2. what the change replaced must be restorable: a file whose content is in the store, nothing,
 *    or an empty folder; the entry a move took away comes back by moving it (UNDO_UNAVAILABLE);
 * 3. every path must hold exactly what the change left there (a folder: the same folder), and a
 *    path that gets something back must have its folder (PRECONDITION_FAILED);
 * 4. what the undo takes away (a file it replaces or removes) is captured into the store first,
 *    and must fit it (FileHistory.keeps): an undo that would destroy a file the history cannot
 *    hold is refused (UNDO_UNAVAILABLE); RestoreFile or DeleteFile do that when asked to.
 *
 * Every stored content it relies on is pinned in its journal before it is relied on, and the
 * journal says which steps are done (undo-journaled.ts): a server killed between two steps has
 * the undo finished, or taken back, when it (or a replica) starts again. Each step is guarded by
 * what it expects to find; should one fail, the steps before it are taken back. The undo is
 * recorded as one change of the same paths (a move again for a move), so undoing it redoes it.
 */
export async function undoLastChange(
  deps: FileToolsDeps,
  history: FileHistory,
  context: HandlerContext,
  sandbox: Sandbox,
  clientPath: string,
): Promise<UndoResult> {
  const maxPathDepth = deps.limits.maxPathDepth;
  await recoverUndos(history, sandbox, maxPathDepth);
  const key = await history.keyOf(sandbox, clientPath, { entry: true });
  const [last] = await history.list(key, 1);
  if (last === undefined) {
    throw new ToolhostError("NOT_IN_HISTORY", `"${clientPath}" has no recorded change to undo.`, { path: clientPath });
  }
  const change = await undoneChange(history, sandbox, clientPath, key, last);
  // The tier of the change undone, and delete when the undo removes what the change created.
  const removes = change.entries.some((e) => e.before.type === "none" && e.after.type !== "none");
  requireTier(
    context,
    undoTier(last.operation, removes),
    `Undoing the last change of "${clientPath}" (${removes ? "it created what the undo removes" : `the ${last.operation}`})`,
  );
  const movedAway = (e: UndoEntry) => change.kind === "move" && e === change.from;
  const movedHere = (e: UndoEntry) => change.kind === "move" && e === change.to;
  for (const entry of change.entries)
    await requireRestorable(history, clientPath, entry, movedAway(entry), movedHere(entry));
  const caller = callerOf(deps, context);
  const journal = await history.journals.begin<UndoJournalBody>({
    version: 1,
    clientPath,
    requested: { root: key.root, relative: key.relative },
    caller,
    change: newChangeId(),
    steps: [],
    done: 0,
    records: [],
    pins: [],
  });
  const pins: (() => void)[] = [];
  const pin = async (sha256: string): Promise<void> => {
    pins.push(history.pin([sha256]));
    if (!journal.body.pins.includes(sha256))
      await journal.write({ ...journal.body, pins: [...journal.body.pins, sha256] });
  };
  try {
    // What the undo puts back is pinned, then secured: a prune that took it meanwhile is seen now, before any step.
    for (const entry of change.entries) {
      if (movedAway(entry) || entry.before.type !== "file") continue;
      await pin(entry.before.sha256);
      if (!(await history.secure(entry.before.sha256)))
        throw unavailable(
          clientPath,
          `the content "${entry.shown}" held before its last change was pruned from the history just now`,
        );
    }
    const now = new Map<UndoEntry, CapturedContent>();
    for (const entry of change.entries) now.set(entry, await currentState(history, sandbox, clientPath, entry, pin));
    for (const entry of change.entries) {
      const taken = now.get(entry)!;
      if (taken.type !== "file" || movedHere(entry)) continue;
      if (!taken.stored) {
        throw unavailable(
          clientPath,
          `undoing it would replace the file "${entry.shown}" (${taken.size} bytes) with what was there before, and a file over ${history.keeps} bytes (history.max_file_bytes, and 90% of history.max_bytes) cannot be kept in the history to undo that again; DeleteFile or RestoreFile replace it when asked to`,
        );
      }
    }
    const found = (e: UndoEntry): PathState => now.get(e) ?? e.after;
    const manifest =
      change.kind === "group" && change.entries.length > 1
        ? await storeUndoManifest(history, clientPath, journal.body.change, change, found, pin)
        : undefined;
    const steps = stepsOf(change, found);
    const records = undoRecords(change, found, { caller, change: journal.body.change, manifest });
    await journal.write({ ...journal.body, steps, records });
    const ctx: StepContext = { sandbox, history, clientPath, maxPathDepth };
    await completeUndo(ctx, journal, 0);
  } finally {
    await journal.end();
    for (const release of pins) release();
  }
  const put = change.requested.before;
  return {
    undone: last,
    removed: put.type === "none",
    sha256: put.type === "file" ? put.sha256 : "",
    otherPaths: change.entries.filter((e) => e !== change.requested).map((e) => e.shown),
  };
}

/** stepsOf are the steps that put back what `change` found at each of its paths. */
function stepsOf(change: UndoneChange, found: (e: UndoEntry) => PathState): UndoStep[] {
  const place = (e: UndoEntry): Place => ({ root: e.root, relative: e.relative, shown: e.shown });
  if (change.kind === "move")
    return moveBackSteps(
      place(change.from),
      place(change.to),
      found(change.from),
      found(change.to),
      made(change.to.before),
    );
  return change.entries.map((e) => ({ kind: "transition", place: place(e), from: found(e), to: made(e.before) }));
}

/** made is a state a step makes anew: a folder it makes is a new folder, whatever the old one's identity. */
function made(state: PathState): PathState {
  return state.type === "directory" ? { ...state, id: undefined } : state;
}

/**
 * storeUndoManifest stores the manifest of an undo of several paths before its first step: an
 * undo whose record could not list its paths would be one no later undo could take back whole,
 * so it is refused (UNDO_UNAVAILABLE) while nothing has changed.
 */
async function storeUndoManifest(
  history: FileHistory,
  clientPath: string,
  id: string,
  change: UndoneChange,
  found: (e: UndoEntry) => PathState,
  pin: (sha256: string) => Promise<void>,
): Promise<string> {
  const entries = change.entries.map((e) => ({
    root: e.root,
    relative: e.relative,
    path: e.shown,
    before: found(e),
    after: e.before,
  }));
  return history.storeManifest({ change: id, operation: "restore", entries }, pin).catch((err: unknown) => {
    throw unavailable(
      clientPath,
      `the list of the paths it would change could not be stored in the history (${(err as Error).message})`,
    );
  });
}

/**
 * currentState captures what `entry`'s path holds now (storing a file, which the undo may take
 * away, pinned first) and requires it to be what the change left there, and the folder of a path
 * that gets an entry back to be there.
 */
async function currentState(
  history: FileHistory,
  sandbox: Sandbox,
  clientPath: string,
  entry: UndoEntry,
  pin: (sha256: string) => Promise<void>,
): Promise<CapturedContent> {
  const target = absoluteOf(entry);
  const captured = await history
    .capture(sandbox, target, { entry: true, hashUnstored: true, pin })
    .catch((err: unknown) => {
      throw entry.shown === clientPath ? err : otherPathError(clientPath, entry, err);
    });
  if (captured.key.root !== entry.key.root || captured.key.relative !== entry.key.relative) {
    throw changedSince(
      clientPath,
      entry,
      "a folder on its way was replaced by a link since, so the path leads elsewhere now",
    );
  }
  if (!holds(captured, entry.after))
    throw changedSince(
      clientPath,
      entry,
      `it holds ${describeState(captured)}${captured.type === "directory" && entry.after.type === "directory" ? " made since" : ""}`,
    );
  if (captured.type === "none" && entry.before.type !== "none") {
    const parent = await history.capture(sandbox, path.dirname(target)).catch(() => undefined);
    if (parent?.type !== "directory") {
      throw changedSince(
        clientPath,
        entry,
        `the folder "${path.dirname(entry.shown)}" that held it is gone; undo its removal first`,
      );
    }
  }
  return captured;
}

/** otherPathError words a refusal of another path of the change for the path asked for. */
function otherPathError(clientPath: string, entry: UndoEntry, err: unknown): unknown {
  if (!(err instanceof ToolhostError)) return err;
  return new ToolhostError(
    err.reason,
    `Cannot undo the last change of "${clientPath}": that change also changed "${entry.shown}", which this call cannot change (${err.reason}); nothing was changed.`,
    { ...err.metadata, path: clientPath, other: entry.shown },
  );
}
