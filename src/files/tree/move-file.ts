import type { Stats } from "node:fs";
import path from "node:path";
import { isToolhostError, ToolhostError } from "../../errors/toolhost-error.js";
import { errnoCode } from "../../sandbox/fs-error.js";
import { changedError } from "../../sandbox/sandbox-errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { sha256OfHandle } from "../content-hash.js";
import { withPathLock } from "../write/path-lock.js";
import { checkPreconditions, currentSha256, parsePreconditions } from "../write/preconditions.js";
import type { TargetDirectory } from "../write/target-directory.js";
import { toWriteError } from "../write/write-error.js";
import { copyEntryInto } from "./copy-entry.js";
import { entryKind } from "./entry-kind.js";
import { placeEntry } from "./place-entry.js";
import { syncDirectory } from "./sync-directory.js";
import { holdEntry, statHeld, type HeldEntry } from "./tree-entry.js";
import { alreadyExistsError, intoItselfError, missingParentError, notFoundError } from "./tree-errors.js";
import { nodeTreeFsOps, type TreeFsOps } from "./tree-fs-ops.js";

/** MoveFileOptions is one MoveFile request in domain terms. */
export interface MoveFileOptions {
  readonly from: string;
  readonly to: string;
  readonly overwrite?: boolean | undefined;
  readonly ifSha256?: string | undefined;
  readonly createParents?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly fsOps?: TreeFsOps | undefined;
  /**
   * Called under the path locks of both paths, once every check passed, right before the entry
   * is placed: what it reads at the target is what the placement replaces (the change history
   * records it). Should it throw, nothing is moved.
   */
  readonly beforePlace?: (() => Promise<void>) | undefined;
}

/** MoveFileResult says what moved. */
export interface MoveFileResult {
  readonly type: "file" | "symlink" | "directory" | "other";
  readonly sha256: string;
  readonly overwritten: boolean;
  readonly acrossFilesystems: boolean;
}

const action = "move";

/**
 * moveFile moves a file, a symbolic link (as a link) or a directory. Both sides are resolved as
 * entries in writable roots (a root itself, a read-only root, a path outside refused) and both
 * parents held open by verified descriptors (tree-entry.ts); the move itself names both
 * entries relative to those descriptors, so a path component swapped for a link to outside
 * after the check cannot move anything out of (or into) the roots.
 *
 * On one filesystem it is one rename (overwrite) or an equally atomic no-replace placement
 * (place-entry.ts). Across filesystems a file or link is copied into the target's directory
 * atomically and fsynced (copy-entry.ts), then the source removed; a directory is refused.
 */
export async function moveFile(sandbox: Sandbox, options: MoveFileOptions): Promise<MoveFileResult> {
  const ops = options.fsOps ?? nodeTreeFsOps;
  const { from, to } = options;
  const overwrite = options.overwrite === true;
  const preconditions = parsePreconditions(options.ifSha256, false);
  const source = await holdEntry(ops, sandbox, from, action);
  let target: HeldEntry | undefined;
  try {
    target = await holdEntry(ops, sandbox, to, action, options.createParents === true);
    const fromReal = path.join(source.entry.parentRealPath, source.entry.name);
    const toReal = path.join(target.entry.parentRealPath, target.entry.name);
    if (toReal === fromReal || toReal.startsWith(fromReal + path.sep)) throw intoItselfError(from, to, action);
    const [first, second] = [fromReal, toReal].sort() as [string, string];
    return await withPathLock(first, () =>
      withPathLock(second, () => moveHeld(ops, sandbox, source, target!, overwrite, preconditions.ifSha256, options)),
    );
  } catch (err) {
    await target?.dir?.removeCreated();
    throw err;
  } finally {
    await target?.dir?.close();
    await source.dir?.close();
  }
}

async function moveHeld(
  ops: TreeFsOps,
  sandbox: Sandbox,
  source: HeldEntry,
  target: HeldEntry,
  overwrite: boolean,
  ifSha256: string | undefined,
  options: Pick<MoveFileOptions, "signal" | "beforePlace">,
): Promise<MoveFileResult> {
  const signal = options.signal;
  const { clientPath: from } = source.entry;
  const { clientPath: to } = target.entry;
  const stats = await statHeld(ops, source, action);
  if (source.dir === undefined || source.at === undefined || stats === undefined) throw notFoundError(from, action);
  if (target.dir === undefined || target.at === undefined)
    throw missingParentError(to, `move '${from}'`, "create_parents");
  // Both names of one file (hard links): refused before anything is read of it.
  const existing = await statHeld(ops, target, action);
  if (existing !== undefined && overwrite && existing.dev === stats.dev && existing.ino === stats.ino)
    throw sameFileError(from, to);
  const sha256 = await sourceHash(sandbox, source.dir, source.entry.name, stats, from);
  if (ifSha256 !== undefined) {
    if (stats.isDirectory())
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        `if_sha256 applies to files only, and '${from}' is a directory; drop it to move the directory.`,
        { path: from, field: "if_sha256" },
      );
    checkPreconditions(from, { ifSha256 }, sha256);
  }
  if (existing !== undefined && !overwrite) throw takenError(to, from);
  await options.beforePlace?.();
  let acrossFilesystems = false;
  try {
    await placeEntry(ops, source.at, target.at, stats.isDirectory(), overwrite);
  } catch (err) {
    const code = errnoCode(err);
    if (code !== "EXDEV" && !(code === "EPERM" && !stats.isDirectory()))
      throw placementError(err, from, to, stats, existing);
    // Another filesystem (or one without hard links): copy, then remove the source.
    if (stats.isDirectory()) {
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        `Cannot move directory '${from}' to '${to}': they lie on different filesystems, and a directory is only moved within one; copy it with CopyFile (recursive), then remove it with RemoveDirectory.`,
        { path: from, field: "to" },
      );
    }
    await copyEntryInto(
      ops,
      sandbox,
      { dir: source.dir, name: source.entry.name },
      stats,
      target.dir,
      target.entry.name,
      { overwrite, keepMode: true, sourcePath: from, signal },
    ).catch((e: unknown) => {
      throw placementError(e, from, to, stats, existing);
    });
    await ops.unlink(source.at).catch((e: unknown) => {
      throw toWriteError(e, from, "remove the moved source");
    });
    acrossFilesystems = true;
  }
  await syncDirectory(ops, target.dir.handle, to, "now holds the moved entry");
  await syncDirectory(ops, source.dir.handle, from, "was moved away");
  const type = stats.isFile()
    ? "file"
    : stats.isSymbolicLink()
      ? "symlink"
      : stats.isDirectory()
        ? "directory"
        : "other";
  return { type, sha256: sha256 ?? "", overwritten: existing !== undefined, acrossFilesystems };
}

/**
 * sourceHash hashes a regular file as the entry `name` of the held parent (a link's target,
 * through the sandbox), through the content path: the reply carries it, so a file the content path
 * refuses (several hard links, unless allowed) is not moved. Undefined for anything else.
 */
async function sourceHash(
  sandbox: Sandbox,
  dir: TargetDirectory,
  name: string,
  stats: Stats,
  clientPath: string,
): Promise<string | undefined> {
  if (stats.isSymbolicLink()) return currentSha256(sandbox, clientPath).catch(() => undefined);
  if (!stats.isFile()) return undefined;
  const opened = await sandbox.openContentAt(dir.handle, name, clientPath).catch((err: unknown) => {
    if (isToolhostError(err, "NOT_A_REGULAR_FILE")) throw changedError(clientPath); // swapped for something else since its lstat
    if (isToolhostError(err, "NOT_FOUND")) throw notFoundError(clientPath, action); // removed since its lstat
    throw toWriteError(err, clientPath, action);
  });
  try {
    return await sha256OfHandle(opened.handle);
  } finally {
    await opened.handle.close();
  }
}

/**
 * sameFileError refuses a move between two names of one file (hard links): rename(2) does nothing
 * then and reports success, which would leave the source where it was while answering it moved.
 */
function sameFileError(from: string, to: string): ToolhostError {
  return new ToolhostError(
    "INVALID_ARGUMENT",
    `Cannot move '${from}' to '${to}': both names are links to the same file, so there is nothing to move; nothing was changed. Delete '${from}' with DeleteFile to keep only '${to}'.`,
    { path: from, field: "to" },
  );
}

function takenError(to: string, from: string): ToolhostError {
  return alreadyExistsError(to, `move '${from}' there`, "set overwrite to replace it, or choose another target.");
}

/** placementError words a failed rename, link or copy in terms of the two paths. */
function placementError(err: unknown, from: string, to: string, stats: Stats, existing: Stats | undefined): Error {
  switch (errnoCode(err)) {
    case "EEXIST":
      return existing === undefined && stats.isDirectory()
        ? alreadyExistsError(to, `move '${from}' there`, "something appeared there meanwhile; choose another target.")
        : takenError(to, from);
    case "ENOTEMPTY":
      return alreadyExistsError(
        to,
        `move '${from}' there`,
        "it is a directory that is not empty, which a move never replaces; remove it first.",
      );
    case "EISDIR":
      return alreadyExistsError(
        to,
        `move '${from}' there`,
        `it is a directory, which a ${entryKind(stats)} cannot replace; choose another target.`,
      );
    case "ENOTDIR":
      return existing !== undefined && !existing.isDirectory()
        ? alreadyExistsError(
            to,
            `move '${from}' there`,
            `it is a ${entryKind(existing)}, which a directory cannot replace; choose another target.`,
          )
        : toWriteError(err, to, action);
    case "EINVAL":
      return intoItselfError(from, to, action);
    default:
      return toWriteError(err, to, action);
  }
}
