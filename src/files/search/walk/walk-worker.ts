import { parentPort } from "node:worker_threads";
import { ToolhostError } from "../../../errors/toolhost-error.js";
import { compileGlobs } from "../path-globs.js";
import { SyncWalk } from "./sync-walk.js";
import { resumeFilters } from "./walk-position.js";
import { resumeAt, type WalkBatch, type WalkEnd, type WalkRequest } from "./walk-protocol.js";

/**
 * The walk worker: runs one SyncWalk per WalkRequest it is sent, posting its batches and then
 * one WalkEnd. Once `capacity` batches are posted and not taken it waits on the shared counter
 * until they are down to resumeAt(capacity) (bounded memory and descriptors however big the tree); the stop slot ends the walk at the next
 * folder or wait. The globs are compiled here from the request's strings (functions do not cross
 * threads), by the same compileGlobs the request was validated with. A walk resumed after it gave
 * its worker up (resumeAfter) skips what it handed over before, through those same matchers.
 */
parentPort!.on("message", (request: WalkRequest) => {
  const control = new Int32Array(request.control);
  const stopped = (): boolean => Atomics.load(control, 1) === 1;
  const resume = resumeAt(request.capacity);
  const post = (batch: WalkBatch): void => {
    const full = Atomics.add(control, 0, 1) + 1 >= request.capacity;
    // Said before the batch is posted, so that the receiver knows with it that this walker waits.
    if (full) Atomics.store(control, 2, 1);
    parentPort!.postMessage(batch);
    if (!full) return;
    // Full: wait until the receiver took it down to `resume` (it wakes this thread then).
    for (let staged = Atomics.load(control, 0); staged > resume && !stopped(); staged = Atomics.load(control, 0))
      Atomics.wait(control, 0, staged, 100);
    Atomics.store(control, 2, 0);
  };
  let end: WalkEnd;
  try {
    const include = compileGlobs("include", request.include);
    const exclude = compileGlobs("exclude", request.exclude);
    const filters =
      request.resumeAfter === undefined ? { include, exclude } : resumeFilters(request.resumeAfter, include, exclude);
    const walk = new SyncWalk(
      {
        rules: request.rules,
        include: filters.include,
        exclude: filters.exclude,
        useIgnoreFiles: request.useIgnoreFiles,
        includeHidden: request.includeHidden,
        inherited: request.inherited,
      },
      post,
      stopped,
    );
    const { close, error } = walk.run(request.topFd);
    end = { kind: "end", close, error: error === undefined ? undefined : describe(error) };
  } catch (err) {
    end = { kind: "end", close: [], error: describe(err) };
  }
  parentPort!.postMessage(end);
});

function describe(err: unknown): NonNullable<WalkEnd["error"]> {
  if (err instanceof ToolhostError) return { reason: err.reason, message: err.message, metadata: { ...err.metadata } };
  return { message: err instanceof Error ? err.message : String(err) };
}
