import type { HandlerContext } from "@connectrpc/connect";
import type { ManifestEntry } from "../../files/history/change-manifest.js";
import type { CapturedContent } from "../../files/history/file-history.js";
import type { ChangeOperationName } from "../../files/history/history-types.js";
import { holds, type PathState } from "../../files/history/path-state.js";
import { newChangeId, recordOf } from "../../files/history/record-of.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { callerOf, stateReplaced } from "./recorded-change.js";

/** StepOutcome is what one step did to its path: the hash of the file it replaced (if it reports one) and what it left. */
export interface StepOutcome {
  readonly before?: string | undefined;
  readonly after: PathState;
}

/**
 * RecordedSteps records a change made of several steps on several paths (an ApplyPatch, an undo
 * of one) as one change: each step's path is captured before it runs, and once all have run,
 * `record` writes one record per path (what it held before the first step, what the last left),
 * all with one change id and, for more than one path, the manifest listing them all, so an undo at
 * any of them puts back all of them. A path the steps left as it was (a step and its rollback) is
 * not recorded.
 */
export class RecordedSteps {
  private readonly entries = new Map<
    string,
    { captured: CapturedContent; path: string; before: PathState; after: PathState }
  >();

  constructor(
    private readonly deps: FileToolsDeps,
    private readonly context: HandlerContext,
    private readonly sandbox: Sandbox,
  ) {}

  /** step runs one step on `path`, captured before it; a step that throws changed nothing. */
  async step<T>(path: string, run: () => Promise<T>, outcome: (result: T) => StepOutcome | undefined): Promise<T> {
    const history = this.deps.history;
    if (history === undefined) return run();
    const captured = await history.capture(this.sandbox, path).catch(() => undefined);
    const result = await run();
    const done = outcome(result);
    if (captured === undefined || done === undefined) return result;
    const id = `${captured.key.root}\0${captured.key.relative}`;
    const earlier = this.entries.get(id);
    const before = earlier?.before ?? stateReplaced(captured, done.before);
    // The first step's capture is the one stored; a later step on the same path keeps it.
    this.entries.set(id, {
      captured: earlier?.captured ?? captured,
      path: earlier?.path ?? path,
      before,
      after: done.after,
    });
    return result;
  }

  /** record writes the records of every path the steps changed. Never throws. */
  async record(operation: ChangeOperationName): Promise<void> {
    const history = this.deps.history;
    if (history === undefined) return;
    const changed = [...this.entries.values()].filter((e) => !(holds(e.after, e.before) && holds(e.before, e.after)));
    if (changed.length === 0) return;
    const change = newChangeId();
    const caller = callerOf(this.deps, this.context);
    let manifest: string | undefined;
    if (changed.length > 1) {
      const entries: ManifestEntry[] = changed.map((e) => ({
        ...e.captured.key,
        path: e.path,
        before: e.before,
        after: e.after,
      }));
      manifest = await history.storeManifest({ change, operation, entries }).catch(() => undefined);
      if (manifest === undefined) return;
    }
    for (const e of changed) {
      await history
        .record(e.captured.key, recordOf(operation, caller, e.before, e.after, { change, manifest }))
        .catch(() => undefined);
    }
  }
}
