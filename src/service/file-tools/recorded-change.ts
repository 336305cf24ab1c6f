import type { HandlerContext } from "@connectrpc/connect";
import type { CapturedContent, FileHistory } from "../../files/history/file-history.js";
import type { ChangeOperationName } from "../../files/history/history-types.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** ChangeOutcome is what a finished change says about itself, for its history entry. */
export interface ChangeOutcome {
  /** False for a dry run or a no-op: nothing is recorded. */
  readonly committed: boolean;
  /** SHA-256 of what the change replaced, when the operation reports it ("" for none). */
  readonly before?: string | undefined;
  /** SHA-256 of the content now there; "" when the change removed the file. */
  readonly after: string;
}

/**
 * recordedChange runs one change of one file with the change history around it: the content
 * before is captured through the caller's sandbox, the change runs, and its log line is written.
 * `run` is handed what was captured, so a change can guard itself with it (see DeleteFile).
 * History never changes the outcome of the change itself: a capture that fails is skipped (the
 * change is then logged with its content before unavailable), and a log line that cannot be
 * written after a commit is dropped rather than failing a reply whose change is already on disk.
 */
export async function recordedChange<T>(
  deps: FileToolsDeps,
  context: HandlerContext,
  sandbox: Sandbox,
  clientPath: string,
  operation: ChangeOperationName,
  run: (captured: CapturedContent | undefined) => Promise<T>,
  outcome: (result: T) => ChangeOutcome,
): Promise<T> {
  const history: FileHistory | undefined = deps.history;
  if (history === undefined) return run(undefined);
  const captured = await history.capture(sandbox, clientPath).catch(() => undefined);
  const result = await run(captured);
  const done = outcome(result);
  if (captured !== undefined && done.committed) {
    await history
      .record(captured.key, {
        time: Date.now(),
        operation,
        caller: deps.callerOf?.(context) ?? "anonymous",
        before: done.before ?? (captured.existed ? captured.sha256 : ""),
        after: done.after,
        sizeBefore: captured.size,
      })
      .catch(() => undefined);
  }
  return result;
}
