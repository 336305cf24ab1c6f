import { isToolhostError, ToolhostError } from "../../../errors/toolhost-error.js";
import { deleteFile } from "../../../files/delete-file.js";
import type { FileHistory } from "../../../files/history/file-history.js";
import { describeState, nothingThere, type PathState } from "../../../files/history/path-state.js";
import { makeDirectory } from "../../../files/tree/make-directory.js";
import { moveFile } from "../../../files/tree/move-file.js";
import { removeDirectory } from "../../../files/tree/remove-directory.js";
import { writeFile } from "../../../files/write/write-file.js";
import type { FilePlace } from "../../../files/history/history-types.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { absoluteOf } from "../history-place.js";

/** Place is a path an undo step works on: where it lies (the sandbox reaches it by its absolute real path), and how messages name it. */
export interface Place extends FilePlace {
  readonly shown: string;
}

/**
 * UndoStep is one effect of an undo, as its journal keeps it: a path taken from one state to
 * another (`transition`), or the entry at `from` (which holds `moved`) moved to `to`, where
 * nothing is (`move`: a move undone moves its entry back rather than restoring it).
 */
export type UndoStep =
  | { readonly kind: "transition"; readonly place: Place; readonly from: PathState; readonly to: PathState }
  | { readonly kind: "move"; readonly from: Place; readonly to: Place; readonly moved: PathState };

/** StepContext is what an undo's steps work with. */
export interface StepContext {
  readonly sandbox: Sandbox;
  readonly history: FileHistory;
  /** The path the undo was asked for, which every refusal names. */
  readonly clientPath: string;
  readonly maxPathDepth: number;
}

/**
 * moveBackSteps are the steps that undo a move: whatever is at `from` now (`fromNow`, stored by
 * the undo's checks) goes, the entry at `to` moves back to `from`, and `to` gets back what the
 * move replaced there (`toBefore`).
 */
export function moveBackSteps(
  from: Place,
  to: Place,
  fromNow: PathState,
  moved: PathState,
  toBefore: PathState,
): UndoStep[] {
  return [
    { kind: "transition", place: from, from: fromNow, to: nothingThere },
    { kind: "move", from: to, to: from, moved },
    { kind: "transition", place: to, from: nothingThere, to: toBefore },
  ];
}

/** inverse is the step that takes back what `step` did. */
export function inverse(step: UndoStep): UndoStep {
  return step.kind === "move"
    ? { kind: "move", from: step.to, to: step.from, moved: step.moved }
    : { kind: "transition", place: step.place, from: step.to, to: step.from };
}

/** placesOf are the places a step changes, each with what it finds there and what it leaves. */
export function placesOf(step: UndoStep): { place: Place; from: PathState; to: PathState }[] {
  if (step.kind === "transition") return [{ place: step.place, from: step.from, to: step.to }];
  return [
    { place: step.from, from: step.moved, to: nothingThere },
    { place: step.to, from: nothingThere, to: step.moved },
  ];
}

/** runStep makes one step, guarded by what it expects to find (see transition). */
export async function runStep(ctx: StepContext, step: UndoStep): Promise<void> {
  if (step.kind === "transition") return transition(ctx, step.place, step.from, step.to);
  await moveFile(ctx.sandbox, {
    from: absoluteOf(step.from),
    to: absoluteOf(step.to),
    overwrite: false,
    ifSha256: step.moved.type === "file" ? step.moved.sha256 : undefined,
    createParents: false,
  }).catch((err: unknown) => {
    throw asChangedMeanwhile(ctx, step.from, step.moved, err);
  });
}

/**
 * transition changes the path `place` from `from` (what it must hold now) to `to`, each effect
 * guarded by the state it expects, through the same atomic operations as the FileTools methods:
 * a file is replaced only if it has `from`'s hash, written only where nothing is, deleted only
 * with its hash, a folder removed only while empty and made only where nothing is, and no
 * missing parent is made. A file or folder is made with the mode `to` records. A file's content
 * comes from the store, where the undo's checks found it (and pinned it).
 */
async function transition(ctx: StepContext, place: Place, from: PathState, to: PathState): Promise<void> {
  const { sandbox, maxPathDepth } = ctx;
  const target = absoluteOf(place);
  if (from.type === "none" && to.type === "none") return;
  const contentOf = async (state: PathState): Promise<Buffer> => {
    const content = await ctx.history.content(state.sha256);
    if (content === undefined)
      throw new ToolhostError(
        "UNDO_UNAVAILABLE",
        `Cannot undo the last change of "${ctx.clientPath}": the content to put back at "${place.shown}" was pruned from the history meanwhile.`,
        { path: ctx.clientPath },
      );
    return content;
  };
  try {
    if (from.type === "file" && to.type === "file") {
      await writeFile(sandbox, {
        path: target,
        content: { data: await contentOf(to) },
        ifSha256: from.sha256,
        createParents: false,
        maxPathDepth,
      });
      return;
    }
    if (from.type === "file") {
      const { existed } = await deleteFile(sandbox, { path: target, ifSha256: from.sha256 });
      if (!existed) throw changedMeanwhile(ctx, place, from);
    } else if (from.type === "directory") {
      await removeDirectory(sandbox, { path: target, serverMaxEntries: 1 });
    }
    if (to.type === "file") {
      await writeFile(sandbox, {
        path: target,
        content: { data: await contentOf(to) },
        mustNotExist: true,
        createParents: false,
        maxPathDepth,
        mode: to.mode,
      });
    } else if (to.type === "directory") {
      const { created } = await makeDirectory(sandbox, { path: target, mode: to.mode });
      if (!created) throw changedMeanwhile(ctx, place, from);
    }
  } catch (err) {
    throw asChangedMeanwhile(ctx, place, from, err);
  }
}

/**
 * runSteps makes `steps` in order, calling `done` after each; should one fail, those before it
 * are taken back, latest first. A step that cannot be taken back is not hidden: the error then
 * names each path left as the undo changed it (`left`), and the caller records what it did.
 */
export async function runSteps(
  ctx: StepContext,
  steps: readonly UndoStep[],
  done: (count: number) => Promise<void>,
  from = 0,
): Promise<void> {
  for (let i = from; i < steps.length; i++) {
    try {
      await runStep(ctx, steps[i]!);
    } catch (err) {
      const left = await takeBack(ctx, steps.slice(0, i));
      await done(left.length).catch(() => undefined);
      throw left.length === 0 ? err : notPutBack(ctx, err, left);
    }
    await done(i + 1);
  }
}

/** takeBack takes back `done` steps, latest first, and answers the steps it could not take back (in order). */
export async function takeBack(ctx: StepContext, done: readonly UndoStep[]): Promise<UndoStep[]> {
  const left: UndoStep[] = [];
  for (let i = done.length - 1; i >= 0; i--) {
    // Once one step stays, the steps before it stay too: they set up what it changed.
    if (
      left.length > 0 ||
      !(await runStep(ctx, inverse(done[i]!)).then(
        () => true,
        () => false,
      ))
    )
      left.unshift(done[i]!);
  }
  return left;
}

/**
 * notPutBack is the undo's failure when some of what it had done could not be taken back: the
 * message names those paths and what they hold, so the caller knows the tree is not as before.
 */
function notPutBack(ctx: StepContext, cause: unknown, left: readonly UndoStep[]): ToolhostError {
  const paths = [
    ...new Set(left.flatMap((s) => placesOf(s).map((p) => `"${p.place.shown}" (now ${describeState(p.to)})`))),
  ];
  const why = isToolhostError(cause) ? cause.message : String(cause);
  return new ToolhostError(
    "PRECONDITION_FAILED",
    `Cannot undo the last change of "${ctx.clientPath}": a step failed (${why}), and what the undo had changed could not all be put back: ${paths.join(", ")} stayed as the undo left them, which the history records. Look at ListFileHistory of each before trying again.`,
    { path: ctx.clientPath },
  );
}

function changedMeanwhile(ctx: StepContext, place: Place, expected: PathState): ToolhostError {
  return new ToolhostError(
    "PRECONDITION_FAILED",
    `Cannot undo the last change of "${ctx.clientPath}": "${place.shown}" changed while the undo ran (it was to hold ${describeState(expected)}); what the undo had changed was put back. Look at ListFileHistory and try again.`,
    { path: ctx.clientPath },
  );
}

/**
 * asChangedMeanwhile words a guard that failed under a step (another writer got there between
 * the undo's checks and its step), or a folder found not empty, as the undo's PRECONDITION_FAILED;
 * other errors pass as they are.
 */
function asChangedMeanwhile(ctx: StepContext, place: Place, expected: PathState, err: unknown): unknown {
  if (isToolhostError(err, "DIRECTORY_NOT_EMPTY")) {
    return new ToolhostError(
      "PRECONDITION_FAILED",
      `Cannot undo the last change of "${ctx.clientPath}": the folder "${place.shown}" is no longer empty, as that change left it; nothing of it was removed. Move or remove what is in it first.`,
      { path: ctx.clientPath },
    );
  }
  if (
    isToolhostError(err, "PRECONDITION_FAILED") ||
    isToolhostError(err, "ALREADY_EXISTS") ||
    isToolhostError(err, "NOT_FOUND") ||
    isToolhostError(err, "FILE_CHANGED")
  ) {
    return isToolhostError(err) && err.message.startsWith("Cannot undo") ? err : changedMeanwhile(ctx, place, expected);
  }
  return err;
}
