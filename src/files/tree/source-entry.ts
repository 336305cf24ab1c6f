import { resolveEntryInRoots } from "../../sandbox/resolve-entry.js";
import type { Sandbox, SandboxRoot } from "../../sandbox/sandbox.js";
import type { AtomicFsOps } from "../write/fs-ops.js";
import { openTargetDirectory } from "../write/target-directory.js";
import { toWriteError } from "../write/write-error.js";
import { directoryPath, type HeldEntry } from "./tree-entry.js";

/**
 * readableRoots is the caller's roots with every one counted as writable: a copy only reads its
 * source, so a read-only root may be copied from. Used only to hold a copy's source; the target
 * is always held against the real roots.
 */
export function readableRoots(sandbox: Sandbox): readonly SandboxRoot[] {
  return sandbox.roots.map((root) => ({ ...root, readOnly: false }));
}

/**
 * holdSourceEntry is holdEntry (tree-entry.ts) for an entry that is only read: the same entry
 * resolution (final link not followed, so a link is copied as a link) and verified parent
 * descriptor, read-only roots allowed.
 */
export async function holdSourceEntry(ops: AtomicFsOps, sandbox: Sandbox, clientPath: string): Promise<HeldEntry> {
  const roots = readableRoots(sandbox);
  const entry = await resolveEntryInRoots(roots, directoryPath(clientPath), false);
  try {
    const dir = await openTargetDirectory(ops, entry.parentRealPath, { roots, displayPath: clientPath });
    return { entry: { ...entry, clientPath }, dir, at: dir.entry(entry.name) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      return { entry: { ...entry, clientPath }, dir: undefined, at: undefined };
    throw toWriteError(err, clientPath, "copy");
  }
}
