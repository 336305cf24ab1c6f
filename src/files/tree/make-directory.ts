import { ToolhostError } from "../../errors/toolhost-error.js";
import { errnoCode } from "../../sandbox/fs-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { entryKind } from "./entry-kind.js";
import { nodeFsOps, type AtomicFsOps } from "../write/fs-ops.js";
import { toWriteError } from "../write/write-error.js";
import { syncDirectory } from "./sync-directory.js";
import { directoryPath, holdEntry, statHeld } from "./tree-entry.js";
import { alreadyExistsError, missingParentError } from "./tree-errors.js";

/** MakeDirectoryOptions is one MakeDirectory request in domain terms. */
export interface MakeDirectoryOptions {
  readonly path: string;
  /** Create missing parents too, each inside the verified one before it. */
  readonly parents?: boolean | undefined;
  /** Permission bits (0 to 0o777) of every directory created; default 0o777 under the umask. */
  readonly mode?: number | undefined;
  readonly fsOps?: AtomicFsOps | undefined;
}

/**
 * makeDirectory creates one directory and says whether it did: an existing directory is not an
 * error (created false), anything else there is ALREADY_EXISTS. The mkdir names the new entry
 * relative to its parent's verified descriptor (tree-entry.ts), so a parent swapped for a link
 * to outside cannot move the new directory out of the roots; the parent is fsynced after.
 */
export async function makeDirectory(sandbox: Sandbox, options: MakeDirectoryOptions): Promise<{ created: boolean }> {
  const clientPath = options.path;
  const ops = options.fsOps ?? nodeFsOps;
  const mode = parseDirectoryMode(options.mode, clientPath);
  const resolved = await sandbox.resolve(directoryPath(clientPath));
  if (resolved.realPath === resolved.root.path) {
    return { created: false }; // A root always exists; there is nothing to make.
  }
  const held = await holdEntry(ops, sandbox, clientPath, "create directory", options.parents === true);
  if (held.dir === undefined || held.at === undefined)
    throw missingParentError(clientPath, "create the directory", "parents");
  try {
    try {
      await ops.mkdir(held.at, mode);
    } catch (err) {
      if (errnoCode(err) !== "EEXIST") throw toWriteError(err, clientPath, "create directory");
      const stats = await statHeld(ops, held, "create directory");
      if (stats?.isDirectory() === true) return { created: false };
      throw alreadyExistsError(
        clientPath,
        "create the directory",
        `it is a ${stats === undefined ? "entry" : entryKind(stats)}; choose another path or remove it first.`,
      );
    }
    await syncDirectory(ops, held.dir.handle, clientPath, "was created");
    return { created: true };
  } catch (err) {
    await held.dir.removeCreated();
    throw err;
  } finally {
    await held.dir.close();
  }
}

/** parseDirectoryMode checks the permission bits asked for: 0 to 0o777, set-id and sticky refused. */
function parseDirectoryMode(mode: number | undefined, clientPath: string): number {
  if (mode === undefined) return 0o777;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o777) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `mode ${mode} (0o${mode.toString(8)}) for '${clientPath}' is not permission bits between 0 and 0o777 (511); send e.g. 493 for 0o755.`,
      { path: clientPath, field: "mode" },
    );
  }
  return mode;
}
