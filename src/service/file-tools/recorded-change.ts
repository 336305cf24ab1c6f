import type { HandlerContext } from "@connectrpc/connect";
import type { CapturedContent, CaptureOptions, FileHistory } from "../../files/history/file-history.js";
import type { ChangeOperationName, EntryType } from "../../files/history/history-types.js";
import { nothingThere, type PathState } from "../../files/history/path-state.js";
import { newChangeId, recordOf } from "../../files/history/record-of.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** ChangeOutcome is what a finished change says about itself, for its history entry. */
export interface ChangeOutcome {
  /** False for a dry run or a no-op: nothing is recorded. */
  readonly committed: boolean;
  /** SHA-256 of the file the change replaced, when the operation reports it ("" for none). */
  readonly before?: string | undefined;
  /** SHA-256 of the file now there; "" when the change left no file there. */
  readonly after: string;
  /** What the change left there, when not told by `after` (a folder). */
  readonly typeAfter?: EntryType | undefined;
  readonly sizeAfter?: number | undefined;
  /** For a folder the change removed or made: how many entries were below it. */
  readonly entriesBefore?: number | undefined;
  readonly entriesAfter?: number | undefined;
}

/** RecordOptions are CaptureOptions, and whether the change captures its path again under its own lock. */
export interface RecordOptions extends CaptureOptions {
  /**
   * The change calls the hook `run` is handed under its path lock right before it replaces what
   * is there (CopyFile): the path is captured again then, and that capture is what is recorded,
   * so a write that landed in between is what the record says was replaced.
   */
  readonly underLock?: boolean | undefined;
}

/**
 * recordedChange runs one change of one path with the change history around it: what the path
 * holds before is captured through the caller's sandbox, the change runs, and its log line is
 * written. `run` is handed what was captured, so a change can guard itself with it (see
 * DeleteFile), and, with `underLock`, the hook that captures it again. History never changes the
 * outcome of the change itself: a capture that fails is skipped (the change is then not
 * recorded), and a log line that cannot be written after a commit is dropped rather than failing
 * a reply whose change is already on disk.
 */
export async function recordedChange<T>(
  deps: FileToolsDeps,
  context: HandlerContext,
  sandbox: Sandbox,
  clientPath: string,
  operation: ChangeOperationName,
  run: (captured: CapturedContent | undefined, beforePlace?: () => Promise<void>) => Promise<T>,
  outcome: (result: T) => ChangeOutcome,
  options: RecordOptions = {},
): Promise<T> {
  const history: FileHistory | undefined = deps.history;
  if (history === undefined) return run(undefined);
  let captured = await history.capture(sandbox, clientPath, options).catch(() => undefined);
  const again = async (): Promise<void> => {
    captured =
      captured === undefined ? undefined : await history.capture(sandbox, clientPath, options).catch(() => undefined);
  };
  const result = await run(captured, options.underLock === true ? again : undefined);
  const done = outcome(result);
  if (captured !== undefined && done.committed) {
    const record = recordOf(operation, callerOf(deps, context), stateReplaced(captured, done.before), stateLeft(done), {
      change: newChangeId(),
      entriesBefore: done.entriesBefore,
      entriesAfter: done.entriesAfter,
    });
    await history.record(captured.key, record).catch(() => undefined);
  }
  return result;
}

/** callerOf is the caller's identity as history entries name it. */
export function callerOf(deps: FileToolsDeps, context: HandlerContext): string {
  return deps.callerOf?.(context) ?? "anonymous";
}

/**
 * stateReplaced is what a change replaced: what was captured, unless the change itself reports
 * the hash of the file it replaced (a write hashes the very file its rename replaces, which
 * another writer may have changed since the capture). A file the sandbox would not let the
 * capture read (a hard-linked one) is recorded as a file of unknown content, whatever the
 * change reports: its hash is not the history's to keep.
 */
export function stateReplaced(captured: CapturedContent, reported: string | undefined): PathState {
  if (reported === undefined || !captured.readable || (captured.type === "file" && reported === captured.sha256))
    return captured;
  if (reported === "") return captured.type === "file" ? nothingThere : captured;
  return { type: "file", sha256: reported, size: captured.type === "file" ? captured.size : 0 };
}

function stateLeft(done: ChangeOutcome): PathState {
  const type = done.typeAfter ?? (done.after !== "" ? "file" : "none");
  return { type, sha256: type === "file" ? done.after : "", size: type === "file" ? (done.sizeAfter ?? 0) : 0 };
}
