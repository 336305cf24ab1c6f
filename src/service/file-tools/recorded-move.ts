import type { HandlerContext } from "@connectrpc/connect";
import type { CapturedContent, FileHistory } from "../../files/history/file-history.js";
import type { ChangeOperationName, EntryType } from "../../files/history/history-types.js";
import { nothingThere, type PathState } from "../../files/history/path-state.js";
import { newChangeId, recordOf } from "../../files/history/record-of.js";
import type { MoveFileResult } from "../../files/tree/move-file.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { callerOf } from "./recorded-change.js";

/** MovePaths are the two paths of a move: how to reach each, and how its caller named it. */
export interface MovePaths {
  readonly from: string;
  readonly to: string;
  /** How the records name them; default `from` and `to`. */
  readonly shownFrom?: string | undefined;
  readonly shownTo?: string | undefined;
}

/** CapturedMove is what both paths of a move held just before it. */
export interface CapturedMove {
  readonly from: CapturedContent;
  readonly to: CapturedContent;
}

/**
 * captureMove captures both paths of a move as entries (a link is moved as a link). Undefined
 * when either capture fails: such a move is not recorded.
 */
export async function captureMove(history: FileHistory, sandbox: Sandbox, paths: MovePaths): Promise<CapturedMove | undefined> {
  const from = await history.capture(sandbox, paths.from, { entry: true }).catch(() => undefined);
  const to = from === undefined ? undefined : await history.capture(sandbox, paths.to, { entry: true }).catch(() => undefined);
  return from === undefined || to === undefined ? undefined : { from, to };
}

/**
 * recordMove writes a move's two records, one change: at `from` the entry that left (after it,
 * `leftBehind`: nothing, unless an undo put back what was there before), at `to` what it
 * replaced and the entry that arrived. Each names the other, so an undo at either path moves the
 * entry back and puts back what `to` held, as one change.
 */
export async function recordMove(
  deps: FileToolsDeps,
  context: HandlerContext,
  operation: ChangeOperationName,
  paths: MovePaths,
  captured: CapturedMove,
  result: MoveFileResult,
  leftBehind: PathState = nothingThere,
): Promise<void> {
  const history = deps.history;
  if (history === undefined) return;
  const moved = movedState(captured.from, result);
  // What the move replaced at `to`: what was captured there, or, should something have appeared
  // there in between, an entry of unknown content (which no undo puts back).
  const replaced: PathState = !result.overwritten ? nothingThere : captured.to.type !== "none" ? captured.to : { type: "file", sha256: "", size: 0 };
  const change = newChangeId();
  const caller = callerOf(deps, context);
  const fromRecord = recordOf(operation, caller, moved, leftBehind, { change, moved: { side: "from", ...captured.to.key, path: paths.shownTo ?? paths.to } });
  const toRecord = recordOf(operation, caller, replaced, moved, { change, moved: { side: "to", ...captured.from.key, path: paths.shownFrom ?? paths.from } });
  await history.record(captured.from.key, fromRecord).catch(() => undefined);
  await history.record(captured.to.key, toRecord).catch(() => undefined);
}

/**
 * recordedMove runs a MoveFile with both of its paths recorded (see recordMove); a move whose
 * capture failed runs unrecorded.
 */
export async function recordedMove(deps: FileToolsDeps, context: HandlerContext, sandbox: Sandbox, paths: MovePaths, run: () => Promise<MoveFileResult>): Promise<MoveFileResult> {
  const history = deps.history;
  if (history === undefined) return run();
  const captured = await captureMove(history, sandbox, paths);
  const result = await run();
  if (captured !== undefined) await recordMove(deps, context, "move", paths, captured, result);
  return result;
}

/**
 * movedState is what moved: a file with the hash the move took (the whole file, over
 * max_file_bytes too; none for a file the sandbox does not let be read), or an entry by type.
 */
function movedState(from: CapturedContent, result: MoveFileResult): PathState {
  const type: EntryType = result.type === "file" ? "file" : result.type === "directory" ? "directory" : result.type === "symlink" ? "symlink" : "other";
  if (type !== "file") return { type, sha256: "", size: 0 };
  return { type, sha256: from.readable ? result.sha256 : "", size: from.type === "file" ? from.size : 0 };
}
