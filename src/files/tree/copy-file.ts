import path from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { withPathLock } from "../write/path-lock.js";
import { toWriteError } from "../write/write-error.js";
import { copyEntryInto, isTakenError } from "./copy-entry.js";
import { copyTree } from "./copy-tree.js";
import { entryKind } from "./entry-kind.js";
import { holdSourceEntry } from "./source-entry.js";
import { holdEntry, statHeld, type HeldEntry } from "./tree-entry.js";
import { alreadyExistsError, intoItselfError, missingParentError, notFoundError } from "./tree-errors.js";
import { nodeTreeFsOps, type TreeFsOps } from "./tree-fs-ops.js";

/** CopyFileOptions is one CopyFile request in domain terms. */
export interface CopyFileOptions {
  readonly from: string;
  readonly to: string;
  readonly overwrite?: boolean | undefined;
  readonly recursive?: boolean | undefined;
  readonly keepMode?: boolean | undefined;
  readonly createParents?: boolean | undefined;
  /** The server's max_tree_entries: most entries a recursive copy makes. */
  readonly maxEntries: number;
  readonly signal?: AbortSignal | undefined;
  readonly fsOps?: TreeFsOps | undefined;
  /**
   * Called, for a file or link, under the target's path lock right before the copy is put in
   * place: what it reads at the target is what the copy replaces (the change history records it).
   */
  readonly beforePlace?: (() => Promise<void>) | undefined;
}

/** CopyFileResult says what was copied. */
export interface CopyFileResult {
  readonly type: "file" | "symlink" | "directory";
  readonly sha256: string;
  readonly bytesCopied: number;
  readonly entriesCopied: number;
  readonly overwritten: boolean;
}

const action = "copy";

/**
 * copyFile copies a file or a symbolic link (as a link) atomically, or with `recursive` a
 * directory tree, which appears at its target all at once (copy-tree.ts). The source may lie in
 * a read-only root; the target must lie in a writable one. Source and target parents are held
 * by verified descriptors and every read and write names entries relative to them, so a path
 * component swapped for a link to outside can neither copy an outside file in nor write out; a
 * file's bytes are read through the sandbox's content path, so a hard link to an outside file is
 * refused (unless allowed) instead of becoming a readable 1-link copy.
 */
export async function copyFile(sandbox: Sandbox, options: CopyFileOptions): Promise<CopyFileResult> {
  const ops = options.fsOps ?? nodeTreeFsOps;
  const { from, to } = options;
  const overwrite = options.overwrite === true;
  const source = await holdSourceEntry(ops, sandbox, from);
  let target: HeldEntry | undefined;
  try {
    target = await holdEntry(ops, sandbox, to, action, options.createParents === true);
    const fromReal = path.join(source.entry.parentRealPath, source.entry.name);
    const toReal = path.join(target.entry.parentRealPath, target.entry.name);
    if (toReal === fromReal || toReal.startsWith(fromReal + path.sep)) throw intoItselfError(from, to, action);
    const stats = await statHeld(ops, source, action);
    if (source.dir === undefined || source.at === undefined || stats === undefined) throw notFoundError(from, action);
    if (target.dir === undefined) throw missingParentError(to, `copy '${from}'`, "create_parents");
    const existing = await statHeld(ops, target, action);
    if (stats.isDirectory()) {
      if (options.recursive !== true) {
        throw new ToolhostError(
          "NOT_A_REGULAR_FILE",
          `Cannot copy '${from}': it is a directory; set recursive to copy it with everything in it.`,
          { path: from, field: "recursive" },
        );
      }
      if (existing !== undefined) {
        throw alreadyExistsError(
          to,
          `copy directory '${from}' there`,
          "a directory copy never merges into or replaces what is there; remove it first (RemoveDirectory) or choose another target.",
        );
      }
      const copied = await copyTree(ops, sandbox, source.at, target.dir, target.entry.name, {
        from,
        to,
        keepMode: options.keepMode === true,
        maxEntries: options.maxEntries,
        signal: options.signal,
      });
      return { type: "directory", sha256: "", ...copied, overwritten: false };
    }
    if (existing !== undefined && !overwrite) throw takenError(to, from);
    if (existing?.isDirectory() === true) {
      throw alreadyExistsError(
        to,
        `copy '${from}' there`,
        `it is a directory, which a ${entryKind(stats)} never replaces; choose a path inside it.`,
      );
    }
    // The placement holds the target's path lock, as a write's commit does, so that what the
    // history captures there (beforePlace) is what the rename replaces.
    const placeUnder = <T>(place: () => Promise<T>): Promise<T> =>
      withPathLock(toReal, async () => {
        await options.beforePlace?.();
        return place();
      });
    const copied = await copyEntryInto(
      ops,
      sandbox,
      { dir: source.dir, name: source.entry.name },
      stats,
      target.dir,
      target.entry.name,
      { overwrite, keepMode: options.keepMode === true, sourcePath: from, signal: options.signal, placeUnder },
    ).catch((err: unknown) => {
      throw isTakenError(err) ? takenError(to, from) : toWriteError(err, to, action);
    });
    return {
      type: stats.isSymbolicLink() ? "symlink" : "file",
      sha256: copied.sha256,
      bytesCopied: copied.size,
      entriesCopied: 1,
      overwritten: copied.overwritten,
    };
  } catch (err) {
    await target?.dir?.removeCreated();
    throw err;
  } finally {
    await target?.dir?.close();
    await source.dir?.close();
  }
}

function takenError(to: string, from: string): ToolhostError {
  return alreadyExistsError(to, `copy '${from}' there`, "set overwrite to replace it, or choose another target.");
}
