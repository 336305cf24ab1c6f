import { isToolhostError, ToolhostError } from "../../../errors/toolhost-error.js";
import { deleteFile } from "../../../files/delete-file.js";
import type { FileHistory } from "../../../files/history/file-history.js";
import { describeState, type PathState } from "../../../files/history/path-state.js";
import { makeDirectory } from "../../../files/tree/make-directory.js";
import { moveFile } from "../../../files/tree/move-file.js";
import { removeDirectory } from "../../../files/tree/remove-directory.js";
import { writeFile } from "../../../files/write/write-file.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";

/** Place is a path an undo step works on: how the sandbox reaches it, and how messages name it. */
export interface Place {
  readonly target: string;
  readonly shown: string;
}

/** StepContext is what an undo's steps work with. */
export interface StepContext {
  readonly sandbox: Sandbox;
  readonly history: FileHistory;
  /** The path the undo was asked for, which every refusal names. */
  readonly clientPath: string;
}

/**
 * transition changes the path `target` from `from` (what it must hold now) to `to`, each effect
 * guarded by the state it expects, through the same atomic operations as the FileTools methods:
 * a file is replaced only if it has `from`'s hash, written only where nothing is, deleted only
 * with its hash, a folder removed only while empty and made only where nothing is, and no
 * missing parent is made. A file's content comes from the store, where the undo's checks found
 * it; anything else there is refused before this runs.
 */
export async function transition(ctx: StepContext, place: Place, from: PathState, to: PathState, maxPathDepth: number): Promise<void> {
  const { sandbox } = ctx;
  const target = place.target;
  const contentOf = async (state: PathState): Promise<Buffer> => {
    const content = await ctx.history.content(state.sha256);
    if (content === undefined) throw new ToolhostError("UNDO_UNAVAILABLE", `Cannot undo the last change of "${ctx.clientPath}": the content to put back at "${place.shown}" was pruned from the history meanwhile.`, { path: ctx.clientPath });
    return content;
  };
  try {
    if (from.type === "file" && to.type === "file") {
      await writeFile(sandbox, { path: target, content: { data: await contentOf(to) }, ifSha256: from.sha256, createParents: false, maxPathDepth });
      return;
    }
    if (from.type === "file") {
      const { existed } = await deleteFile(sandbox, { path: target, ifSha256: from.sha256 });
      if (!existed) throw changedMeanwhile(ctx, place, from);
    } else if (from.type === "directory") {
      await removeDirectory(sandbox, { path: target, serverMaxEntries: 1 });
    }
    if (to.type === "file") {
      await writeFile(sandbox, { path: target, content: { data: await contentOf(to) }, mustNotExist: true, createParents: false, maxPathDepth });
    } else if (to.type === "directory") {
      const { created } = await makeDirectory(sandbox, { path: target });
      if (!created) throw changedMeanwhile(ctx, place, from);
    }
  } catch (err) {
    throw asChangedMeanwhile(ctx, place, from, err);
  }
}

/**
 * moveBack undoes a move: the entry at `to` goes back to `from` (which must hold `fromNow`, taken
 * away first; it is stored), then `to` gets back what the move replaced there (`toBefore`).
 * Should a later step fail, the earlier ones are undone again, so the paths are as they were.
 */
export async function moveBack(
  ctx: StepContext,
  paths: { readonly from: Place; readonly to: Place },
  fromNow: PathState,
  moved: PathState,
  toBefore: PathState,
  maxPathDepth: number,
): Promise<void> {
  const none: PathState = { type: "none", sha256: "", size: 0 };
  await transition(ctx, paths.from, fromNow, none, maxPathDepth);
  const move = (from: Place, to: Place) =>
    moveFile(ctx.sandbox, { from: from.target, to: to.target, overwrite: false, ifSha256: moved.type === "file" ? moved.sha256 : undefined, createParents: false });
  try {
    await move(paths.to, paths.from).catch((err: unknown) => {
      throw asChangedMeanwhile(ctx, paths.to, moved, err);
    });
  } catch (err) {
    await transition(ctx, paths.from, none, fromNow, maxPathDepth).catch(() => undefined);
    throw err;
  }
  try {
    await transition(ctx, paths.to, none, toBefore, maxPathDepth);
  } catch (err) {
    await move(paths.from, paths.to).catch(() => undefined);
    await transition(ctx, paths.from, none, fromNow, maxPathDepth).catch(() => undefined);
    throw err;
  }
}

/** runSteps runs `steps` in order; should one fail, those before it are undone again, latest first. */
export async function runSteps(steps: readonly { run(): Promise<void>; revert(): Promise<void> }[]): Promise<void> {
  const done: { revert(): Promise<void> }[] = [];
  for (const step of steps) {
    try {
      await step.run();
    } catch (err) {
      for (const earlier of done.reverse()) await earlier.revert().catch(() => undefined);
      throw err;
    }
    done.push(step);
  }
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
  if (isToolhostError(err, "PRECONDITION_FAILED") || isToolhostError(err, "ALREADY_EXISTS") || isToolhostError(err, "NOT_FOUND") || isToolhostError(err, "FILE_CHANGED")) {
    return isToolhostError(err) && err.message.startsWith("Cannot undo") ? err : changedMeanwhile(ctx, place, expected);
  }
  return err;
}
