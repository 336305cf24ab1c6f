import path from "node:path";
import type { HandlerContext } from "@connectrpc/connect";
import { ToolhostError } from "../../../errors/toolhost-error.js";
import type { CapturedContent, FileHistory, ListedChange } from "../../../files/history/file-history.js";
import { describeState, holds, type PathState } from "../../../files/history/path-state.js";
import { newChangeId, recordOf } from "../../../files/history/record-of.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { requireTier, undoTier } from "../../method-tiers.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { callerOf } from "../recorded-change.js";
import { changedSince, requireRestorable, unavailable, undoneChange, type UndoEntry, type UndoneChange } from "./undo-entries.js";
import { moveBack, runSteps, transition, type StepContext } from "./undo-steps.js";

/** UndoResult is what an undo did: the change it undid, and what the asked-for path holds now. */
export interface UndoResult {
  readonly undone: ListedChange;
  readonly removed: boolean;
  readonly sha256: string;
  readonly otherPaths: readonly string[];
}

/**
 * undoLastChange undoes the newest recorded change of `clientPath` as a whole: at every path that
 * change touched (both paths of a move, every file of a patch), what it found there is put back,
 * and a move is moved back. It never loses content, so in this order, before anything changes:
 *
 * 1. what the change replaced must be restorable: a file whose content is in the store, nothing,
 *    or an empty folder; the entry a move took away comes back by moving it (UNDO_UNAVAILABLE);
 * 2. every path must hold exactly what the change left there, and a path that gets something
 *    back must have its folder (PRECONDITION_FAILED);
 * 3. what the undo takes away (a file it replaces or removes) is captured into the store first,
 *    and must fit it: an undo that would destroy a file the history cannot hold is refused
 *    (UNDO_UNAVAILABLE); RestoreFile or DeleteFile do that when asked to.
 *
 * Then each path is changed under its own guards; should a step find its path changed meanwhile,
 * the steps before it are undone again. The undo is recorded as one change of the same paths (a
 * move again for a move), so undoing it redoes the change.
 */
export async function undoLastChange(deps: FileToolsDeps, history: FileHistory, context: HandlerContext, sandbox: Sandbox, clientPath: string): Promise<UndoResult> {
  const key = await history.keyOf(sandbox, clientPath);
  const [last] = await history.list(key, 1);
  if (last === undefined) {
    throw new ToolhostError("NOT_IN_HISTORY", `"${clientPath}" has no recorded change to undo.`, { path: clientPath });
  }
  const change = await undoneChange(history, clientPath, key, last);
  // The tier of the change undone, and delete when the undo removes what the change created.
  const removes = change.entries.some((e) => e.before.type === "none" && e.after.type !== "none");
  requireTier(context, undoTier(last.operation, removes), `Undoing the last change of "${clientPath}" (${removes ? "it created what the undo removes" : `the ${last.operation}`})`);
  for (const entry of change.entries) {
    const movedAway = change.kind === "move" && entry === change.from;
    const movedHere = change.kind === "move" && entry === change.to;
    await requireRestorable(history, clientPath, entry, movedAway, movedHere);
  }
  const now = new Map<UndoEntry, CapturedContent>();
  for (const entry of change.entries) now.set(entry, await currentState(history, sandbox, clientPath, entry));
  for (const entry of change.entries) {
    const taken = now.get(entry)!;
    if (taken.type !== "file" || (change.kind === "move" && entry === change.to)) continue;
    if (!taken.stored) {
      throw unavailable(clientPath, `undoing it would replace the file "${entry.shown}" (${taken.size} bytes) with what was there before, and a file over history.max_file_bytes (${history.config.maxFileBytes} bytes) cannot be kept in the history to undo that again; DeleteFile or RestoreFile replace it when asked to`);
    }
  }
  const ctx: StepContext = { sandbox, history, clientPath };
  const depth = deps.limits.maxPathDepth;
  if (change.kind === "move") {
    await moveBack(ctx, { from: change.from, to: change.to }, change.from.after, change.to.after, change.to.before, depth);
  } else {
    await runSteps(change.entries.map((e) => ({ run: () => transition(ctx, e, e.after, e.before, depth), revert: () => transition(ctx, e, e.before, e.after, depth) })));
  }
  await recordUndo(deps, history, context, change, now);
  const put = change.requested.before;
  return {
    undone: last,
    removed: put.type === "none",
    sha256: put.type === "file" ? put.sha256 : "",
    otherPaths: change.entries.filter((e) => e !== change.requested).map((e) => e.shown),
  };
}

/**
 * currentState captures what `entry`'s path holds now (storing a file, which the undo may take
 * away) and requires it to be what the change left there, and the folder of a path that gets an
 * entry back to be there.
 */
async function currentState(history: FileHistory, sandbox: Sandbox, clientPath: string, entry: UndoEntry): Promise<CapturedContent> {
  const captured = await history.capture(sandbox, entry.target, { entry: true, hashUnstored: true }).catch((err: unknown) => {
    throw entry.target === clientPath ? err : otherPathError(clientPath, entry, err);
  });
  if (captured.key.root !== entry.key.root || captured.key.relative !== entry.key.relative) {
    throw changedSince(clientPath, entry, "a folder on its way was replaced by a link since, so the path leads elsewhere now");
  }
  if (!holds(captured, entry.after)) throw changedSince(clientPath, entry, `it holds ${describeState(captured)}`);
  if (captured.type === "none" && entry.before.type !== "none") {
    const folder = { ...entry, target: path.dirname(entry.target), shown: path.dirname(entry.shown) };
    const parent = await history.capture(sandbox, folder.target).catch(() => undefined);
    if (parent?.type !== "directory") {
      throw changedSince(clientPath, entry, `the folder "${folder.shown}" that held it is gone; undo its removal first`);
    }
  }
  return captured;
}

/** otherPathError words a refusal of another path of the change (e.g. outside the caller's scope) for the path asked for. */
function otherPathError(clientPath: string, entry: UndoEntry, err: unknown): unknown {
  if (!(err instanceof ToolhostError)) return err;
  return new ToolhostError(err.reason, `Cannot undo the last change of "${clientPath}": that change also changed "${entry.shown}", which this call cannot change (${err.reason}); nothing was changed.`, { ...err.metadata, path: clientPath, other: entry.shown });
}

/**
 * recordUndo records the undo as one change of the same paths, each from what the undo found
 * there (`now`) to what it put back: a move the other way for a move, with a manifest for a
 * change of several files. Never throws.
 */
async function recordUndo(deps: FileToolsDeps, history: FileHistory, context: HandlerContext, change: UndoneChange, now: ReadonlyMap<UndoEntry, PathState>): Promise<void> {
  const id = newChangeId();
  const caller = callerOf(deps, context);
  const found = (e: UndoEntry): PathState => now.get(e) ?? e.after;
  if (change.kind === "move") {
    const { from, to } = change;
    // The entry now leaves `to` (which gets back what it held) and arrives at `from` again.
    const leaving = recordOf("restore", caller, found(to), to.before, { change: id, moved: { side: "from", ...from.key, path: from.shown } });
    const arriving = recordOf("restore", caller, found(from), found(to), { change: id, moved: { side: "to", ...to.key, path: to.shown } });
    await history.record(to.key, leaving).catch(() => undefined);
    await history.record(from.key, arriving).catch(() => undefined);
    return;
  }
  let manifest: string | undefined;
  if (change.entries.length > 1) {
    const entries = change.entries.map((e) => ({ ...e.key, path: e.shown, before: found(e), after: e.before }));
    manifest = await history.storeManifest({ change: id, operation: "restore", entries }).catch(() => undefined);
    if (manifest === undefined) return;
  }
  for (const e of change.entries) {
    await history.record(e.key, recordOf("restore", caller, found(e), e.before, { change: id, manifest, entriesBefore: e.record.entriesAfter, entriesAfter: e.record.entriesBefore })).catch(() => undefined);
  }
}
