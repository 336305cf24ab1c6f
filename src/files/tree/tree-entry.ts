import type { Stats } from "node:fs";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ResolvedEntry, Sandbox } from "../../sandbox/sandbox.js";
import type { AtomicFsOps } from "../write/fs-ops.js";
import { openTargetDirectory, type TargetDirectory } from "../write/target-directory.js";
import { toWriteError } from "../write/write-error.js";

/**
 * HeldEntry is one entry a tree operation acts on: the sandbox's resolution of it (final
 * component not followed) and its parent directory held open by a verified descriptor, so that
 * every later step names the entry relative to that descriptor and never walks the path again.
 */
export interface HeldEntry {
  readonly entry: ResolvedEntry;
  /** The open parent directory; undefined when it does not exist (and createParents was off). */
  readonly dir: TargetDirectory | undefined;
  /** The entry relative to the held directory (/proc/self/fd/N/name). */
  readonly at: string | undefined;
}

/**
 * directoryPath drops trailing slashes from a client path that names a directory ("logs/" is
 * "logs"): the sandbox's entry resolution refuses them because for a file they are a mistake.
 */
export function directoryPath(clientPath: string): string {
  const trimmed = clientPath.replace(/\/+$/, "");
  return trimmed === "" ? clientPath : trimmed;
}

/**
 * holdEntry resolves `clientPath` as an entry in a writable root (a root itself and read-only
 * roots refused by the sandbox) and opens its parent through openTargetDirectory, which checks
 * the descriptor's real path against the writable roots. A missing parent is undefined unless
 * `createParents`, which creates it one verified directory at a time.
 */
export async function holdEntry(
  ops: AtomicFsOps,
  sandbox: Sandbox,
  clientPath: string,
  action: string,
  createParents = false,
): Promise<HeldEntry> {
  const resolved = await sandbox.resolve(directoryPath(clientPath));
  if (resolved.realPath === resolved.root.path && !resolved.isSymlink && !resolved.root.readOnly)
    throw rootError(clientPath, action);
  const entry = await sandbox.resolveEntryForWrite(directoryPath(clientPath));
  let dir: TargetDirectory | undefined;
  try {
    dir = await openTargetDirectory(ops, entry.parentRealPath, {
      roots: sandbox.roots,
      displayPath: clientPath,
      createParents,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw toWriteError(err, clientPath, action);
  }
  return { entry: { ...entry, clientPath }, dir, at: dir?.entry(entry.name) };
}

/** statHeld lstat()s a held entry (never following a link); undefined when nothing is there. */
export async function statHeld(ops: AtomicFsOps, held: HeldEntry, action: string): Promise<Stats | undefined> {
  if (held.at === undefined) return undefined;
  try {
    return await ops.statTarget(held.at);
  } catch (err) {
    throw toWriteError(err, held.entry.clientPath, action);
  }
}

/**
 * rootError refuses to move, remove or replace a root itself (the reason the write side uses for
 * a root, NOT_A_REGULAR_FILE, with a message for directories): the roots are the server's
 * configuration, not the client's to change.
 */
function rootError(clientPath: string, action: string): ToolhostError {
  return new ToolhostError(
    "NOT_A_REGULAR_FILE",
    `Cannot ${action} "${clientPath}": it is a root directory itself, which the file tools never move, replace or remove; name an entry inside the root.`,
    { path: clientPath },
  );
}
