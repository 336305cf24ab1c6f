import { opendir } from "node:fs/promises";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { errnoCode } from "../../sandbox/fs-error.js";
import { changedError } from "../../sandbox/sandbox-errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { nodeFsOps, type AtomicFsOps } from "../write/fs-ops.js";
import { openTargetDirectory, type TargetDirectory } from "../write/target-directory.js";
import { toWriteError } from "../write/write-error.js";
import { entryKind } from "./entry-kind.js";
import { syncDirectory } from "./sync-directory.js";
import { directoryPath, holdEntry, statHeld } from "./tree-entry.js";
import { notDirectoryError, tooManyEntriesError } from "./tree-errors.js";
import { walkHeldTree } from "./walk-held-tree.js";

/** RemoveDirectoryOptions is one RemoveDirectory request in domain terms. */
export interface RemoveDirectoryOptions {
  readonly path: string;
  readonly recursive?: boolean | undefined;
  readonly dryRun?: boolean | undefined;
  /** Most entries below the directory; 0 or unset uses `serverMaxEntries`, which also caps it. */
  readonly maxEntries?: number | undefined;
  /** The server's max_tree_entries. */
  readonly serverMaxEntries: number;
  readonly fsOps?: AtomicFsOps | undefined;
}

/** RemoveDirectoryResult says what went (or would go). */
export interface RemoveDirectoryResult {
  readonly existed: boolean;
  readonly removedEntries: number;
  /** Client-form paths, deepest first, the directory itself last. */
  readonly paths: string[];
  readonly dryRun: boolean;
}

const action = "remove directory";

/**
 * removeDirectory removes a directory: only an empty one by default (rmdir, atomic), the whole
 * tree with `recursive`. A root itself, a read-only root and a symlink (DeleteFile removes
 * links) are refused; a missing directory is not an error (existed false).
 *
 * A recursive removal first walks the tree to count it (over the bound: TOO_LARGE, nothing
 * removed; dry_run: the list, nothing removed), then walks it again removing deepest first.
 * Both walks go through held, verified directory descriptors (walk-held-tree.ts) and every
 * unlink and rmdir names its entry relative to the descriptor of the directory it is in, so a
 * subdirectory swapped for a link to outside meanwhile is at worst removed as a link, never
 * followed. Entries added between the two walks are removed too, within the same bound.
 */
export async function removeDirectory(
  sandbox: Sandbox,
  options: RemoveDirectoryOptions,
): Promise<RemoveDirectoryResult> {
  const clientPath = options.path;
  const ops = options.fsOps ?? nodeFsOps;
  const limit = entryLimit(options.maxEntries, options.serverMaxEntries);
  const dryRun = options.dryRun === true;
  const held = await holdEntry(ops, sandbox, clientPath, action);
  try {
    const stats = await statHeld(ops, held, action);
    if (held.dir === undefined || held.at === undefined || stats === undefined) {
      return { existed: false, removedEntries: 0, paths: [], dryRun };
    }
    if (!stats.isDirectory()) {
      const hint = stats.isSymbolicLink()
        ? "DeleteFile removes a link (never what it points to)."
        : "DeleteFile removes files.";
      throw notDirectoryError(
        clientPath,
        entryKind(stats),
        `RemoveDirectory removes directories only, so nothing was removed; ${hint}`,
      );
    }
    const base = directoryPath(clientPath);
    const paths: string[] = [];
    if (options.recursive === true) {
      const tree = await openTargetDirectory(ops, held.at, { roots: sandbox.roots, displayPath: clientPath }).catch(
        (err: unknown) => {
          throw toWriteError(err, clientPath, action);
        },
      );
      try {
        await removeBelow(ops, sandbox, tree, clientPath, limit, true, (rel) => paths.push(`${base}/${rel}`));
        if (!dryRun) await removeBelow(ops, sandbox, tree, clientPath, limit, false, () => undefined);
      } finally {
        await tree.close();
      }
    } else if (dryRun && !(await isEmpty(held.at))) {
      throw notEmptyError(clientPath);
    }
    paths.push(base);
    if (dryRun) return { existed: true, removedEntries: paths.length, paths, dryRun };
    try {
      await ops.rmdir(held.at);
    } catch (err) {
      if (errnoCode(err) === "ENOTEMPTY" || errnoCode(err) === "EEXIST") throw notEmptyError(clientPath);
      throw toWriteError(err, clientPath, action);
    }
    await syncDirectory(ops, held.dir.handle, clientPath, "was removed");
    return { existed: true, removedEntries: paths.length, paths, dryRun };
  } finally {
    await held.dir?.close();
  }
}

/** removeBelow walks everything below the held `tree`, counting it and (unless `dryRun`) removing it. */
async function removeBelow(
  ops: AtomicFsOps,
  sandbox: Sandbox,
  tree: TargetDirectory,
  clientPath: string,
  limit: number,
  dryRun: boolean,
  seen: (rel: string) => void,
): Promise<void> {
  let count = 0;
  try {
    await walkHeldTree(ops, tree, {
      roots: sandbox.roots,
      displayPath: clientPath,
      count: () => {
        if (++count > limit) throw tooManyEntriesError(clientPath, dryRun ? "remove" : "remove all of", limit);
      },
      visit: async (entry, parent) => {
        seen(entry.rel);
        if (dryRun) return;
        try {
          if (entry.isDirectory) await ops.rmdir(entry.at);
          else await ops.unlink(entry.at);
        } catch (err) {
          const code = errnoCode(err);
          if (code === "ENOENT") return; // removed meanwhile by someone else: gone, as asked
          // A directory where a file was seen, or the other way round: swapped since the lstat.
          if (code === "ENOTDIR" || code === "EISDIR" || code === "EPERM") throw changedError(clientPath);
          throw err;
        }
        await ops.fsyncDir(parent.handle);
      },
    });
  } catch (err) {
    throw toWriteError(err, clientPath, action);
  }
}

/** entryLimit is the bound a call works under: the client's, capped by the server's. */
function entryLimit(asked: number | undefined, serverMax: number): number {
  if (asked === undefined || asked === 0) return serverMax;
  if (!Number.isSafeInteger(asked) || asked < 0) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `Invalid max_entries: ${asked}; send a whole number, or 0 for the server's bound.`,
      { field: "max_entries" },
    );
  }
  return Math.min(asked, serverMax);
}

async function isEmpty(dir: string): Promise<boolean> {
  const listing = await opendir(dir);
  try {
    return (await listing.read()) === null;
  } finally {
    await listing.close();
  }
}

function notEmptyError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "DIRECTORY_NOT_EMPTY",
    `Cannot remove directory '${clientPath}': it is not empty, so nothing was removed; set recursive to remove it with everything in it (dry_run lists what would go).`,
    { path: clientPath },
  );
}
