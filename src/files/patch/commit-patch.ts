import { ToolhostError } from "../../errors/toolhost-error.js";
import type { StagedFile } from "./stage-patch.js";

/** WriteGuard is the precondition a patch step writes under. */
export type WriteGuard = { readonly ifSha256: string } | { readonly mustNotExist: true };

/** PatchEffects are the writes a patch commit makes: atomic, guarded, recorded by the caller. */
export interface PatchEffects {
  write(path: string, content: Buffer, guard: WriteGuard): Promise<void>;
  remove(path: string, ifSha256: string): Promise<void>;
}

type Undo = { readonly what: string; run(): Promise<void> };

/**
 * commitPatch writes a staged patch file by file, each step guarded by the hash staging saw (so a
 * file changed by someone else meanwhile fails its step instead of being overwritten). If a step
 * fails, every step already taken is undone in reverse order — again guarded, so a file that
 * someone else changed after our write is left alone and named — and the step's own error is
 * thrown, its message extended with exactly what was changed and put back. Codex applies its
 * patches file by file and leaves the earlier files changed; this does not.
 */
export async function commitPatch(staged: readonly StagedFile[], effects: PatchEffects): Promise<void> {
  const undos: Undo[] = [];
  for (const file of staged) {
    try {
      await step(file, effects, undos);
    } catch (err) {
      const notRestored: string[] = [];
      for (const undo of undos.reverse()) {
        await undo.run().catch(() => notRestored.push(undo.what));
      }
      throw withRollback(
        err,
        file,
        undos.map((u) => u.what),
        notRestored,
      );
    }
  }
}

async function step(file: StagedFile, effects: PatchEffects, undos: Undo[]): Promise<void> {
  switch (file.operation) {
    case "add":
      await effects.write(file.path, file.after!, { mustNotExist: true });
      undos.push({ what: file.path, run: () => effects.remove(file.path, file.afterSha256) });
      return;
    case "update":
      await effects.write(file.path, file.after!, { ifSha256: file.beforeSha256 });
      undos.push({
        what: file.path,
        run: () => effects.write(file.path, file.before!, { ifSha256: file.afterSha256 }),
      });
      return;
    case "delete":
      await effects.remove(file.path, file.beforeSha256);
      undos.push({ what: file.path, run: () => effects.write(file.path, file.before!, { mustNotExist: true }) });
      return;
    case "move":
      await effects.write(file.moveTo!, file.after!, { mustNotExist: true });
      undos.push({ what: file.moveTo!, run: () => effects.remove(file.moveTo!, file.afterSha256) });
      await effects.remove(file.path, file.beforeSha256);
      undos.push({ what: file.path, run: () => effects.write(file.path, file.before!, { mustNotExist: true }) });
      return;
  }
}

function withRollback(
  err: unknown,
  file: StagedFile,
  undone: readonly string[],
  notRestored: readonly string[],
): unknown {
  if (!(err instanceof ToolhostError)) return err;
  const restored = undone.filter((p) => !notRestored.includes(p));
  const told =
    `${notRestored.length === 0 ? "ApplyPatch changed nothing" : "ApplyPatch could not undo everything"}: ${file.operation} of "${file.path}" failed: ${err.message}` +
    (restored.length > 0 ? ` The files already changed were put back: ${restored.join(", ")}.` : "") +
    (notRestored.length > 0
      ? ` Could not put back (changed by someone else since; ListFileHistory has their content before): ${notRestored.join(", ")}.`
      : "");
  return new ToolhostError(
    err.reason,
    told,
    { ...err.metadata, failed_path: file.path, restored: restored.join(","), not_restored: notRestored.join(",") },
    { cause: err },
  );
}
