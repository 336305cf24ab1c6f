import type { HandlerContext } from "@connectrpc/connect";
import type { CapturedContent } from "../../files/history/file-history.js";
import type { EntryType } from "../../files/history/history-types.js";
import { nothingThere, type PathState } from "../../files/history/path-state.js";
import { newChangeId, recordOf } from "../../files/history/record-of.js";
import type { MoveFileResult } from "../../files/tree/move-file.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { callerOf } from "./recorded-change.js";

/** MovePaths are the two paths of a move, as its caller named them. */
export interface MovePaths {
  readonly from: string;
  readonly to: string;
}

/** CapturedMove is what both paths of a move held just before it. */
export interface CapturedMove {
  readonly from: CapturedContent;
  readonly to: CapturedContent;
}

/**
 * recordMove writes a move's two records, one change: at `from` the entry that left (after it,
 * nothing), at `to` what it replaced and the entry that arrived. Each names the other's place, so
 * an undo at either path moves the entry back and puts back what `to` held, as one change.
 */
async function recordMove(
  deps: FileToolsDeps,
  context: HandlerContext,
  paths: MovePaths,
  captured: CapturedMove,
  result: MoveFileResult,
): Promise<void> {
  const history = deps.history;
  if (history === undefined) return;
  const moved = movedState(captured.from, result);
  // What the move replaced at `to`: what was captured there under the move's locks, or, should
  // something have appeared there in between (a writer in another process), an entry of unknown
  // content (which no undo puts back).
  const replaced: PathState = !result.overwritten
    ? nothingThere
    : captured.to.type !== "none"
      ? captured.to
      : { type: "file", sha256: "", size: 0 };
  const change = newChangeId();
  const caller = callerOf(deps, context);
  const fromRecord = recordOf("move", caller, moved, nothingThere, {
    change,
    moved: { side: "from", root: captured.to.key.root, relative: captured.to.key.relative, path: paths.to },
  });
  const toRecord = recordOf("move", caller, replaced, moved, {
    change,
    moved: { side: "to", root: captured.from.key.root, relative: captured.from.key.relative, path: paths.from },
  });
  await history.record(captured.from.key, fromRecord).catch(() => undefined);
  await history.record(captured.to.key, toRecord).catch(() => undefined);
}

/**
 * recordedMove runs a MoveFile with both of its paths recorded (see recordMove). The source is
 * captured first; the target is captured by `run`'s hook, which the move calls under the path
 * locks of both paths right before it places the entry (MoveFileOptions.beforePlace): no write of
 * this process can land at the target in between, so what is recorded as replaced is what the
 * rename replaced. A move whose capture failed runs unrecorded.
 */
export async function recordedMove(
  deps: FileToolsDeps,
  sandbox: Sandbox,
  context: HandlerContext,
  paths: MovePaths,
  run: (beforePlace: (() => Promise<void>) | undefined) => Promise<MoveFileResult>,
): Promise<MoveFileResult> {
  const history = deps.history;
  if (history === undefined) return run(undefined);
  const from = await history.capture(sandbox, paths.from, { entry: true }).catch(() => undefined);
  if (from === undefined) return run(undefined);
  let to: CapturedContent | undefined;
  const result = await run(async () => {
    to = await history.capture(sandbox, paths.to, { entry: true }).catch(() => undefined);
  });
  if (to !== undefined) await recordMove(deps, context, paths, { from, to }, result);
  return result;
}

/**
 * movedState is what moved: a file with the hash the move took (the whole file, over
 * max_file_bytes too; none for a file the sandbox does not let be read), or an entry by type;
 * with the mode (and a folder's identity) it had at `from`, which a move keeps.
 */
function movedState(from: CapturedContent, result: MoveFileResult): PathState {
  const type: EntryType =
    result.type === "file"
      ? "file"
      : result.type === "directory"
        ? "directory"
        : result.type === "symlink"
          ? "symlink"
          : "other";
  const extras = {
    mode: from.type === type ? from.mode : undefined,
    id: type === "directory" && from.type === "directory" ? from.id : undefined,
  };
  if (type !== "file") return { type, sha256: "", size: 0, ...extras };
  return { type, sha256: from.readable ? result.sha256 : "", size: from.type === "file" ? from.size : 0, ...extras };
}
