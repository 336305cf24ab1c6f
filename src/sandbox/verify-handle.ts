import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { fstatSync, lstatSync, readlinkSync } from "node:fs";
import { rootContaining } from "./root-containing.js";
import type { SandboxRoot } from "./sandbox.js";
import { procFdPath } from "./proc-fd-path.js";

export { procFdPath };

/**
 * handleIsInRoots tells whether an opened handle's real path lies inside the roots, read from
 * /proc/self/fd/N: the kernel's own record of what was opened, immune to a path component being
 * swapped for a symlink after the sandbox checked it.
 *
 * Where /proc is not mounted (non-Linux), it falls back to comparing the handle's device and
 * inode with those seen when the path was resolved.
 */
export async function handleIsInRoots(
  roots: readonly SandboxRoot[],
  handle: FileHandle,
  opened: Stats,
  resolvedStats: Stats | undefined,
): Promise<boolean> {
  const target = await handleRealPath(handle.fd);
  if (target === undefined || target === deletedEntry) {
    // No /proc, or the file was unlinked since it was opened (so it has no path to check): it is
    // the file the sandbox resolved only if it is the same inode.
    return resolvedStats !== undefined && resolvedStats.dev === opened.dev && resolvedStats.ino === opened.ino;
  }
  return rootContaining(roots, target) !== undefined;
}

/** deletedEntry is what handleRealPath returns for a descriptor whose file or directory was removed. */
export const deletedEntry = Symbol("deleted");

/**
 * handleRealPath reads an open descriptor's real path from /proc/self/fd/N; undefined where /proc
 * is not mounted (non-Linux), which callers must treat as "cannot tell", and deletedEntry when
 * what it names was removed.
 *
 * The kernel marks a removed entry by appending " (deleted)" to the link, but a live directory
 * can have that very name, and stripping the suffix then names a different place (the root
 * "/w" for a directory "/w (deleted)" beside it). The link count tells the two apart: zero only
 * once the entry is really gone.
 *
 * Both calls are synchronous on purpose: a readlink of /proc/self/fd/N and an fstat of a held
 * descriptor are answered from the kernel's memory, never from a disk, and a thread-pool round
 * trip for each cost more CPU than the call itself (StatFile made 9 round trips to the bare
 * server's 5; see bench/README.md, compare).
 */
export async function handleRealPath(fd: number): Promise<string | undefined | typeof deletedEntry> {
  return handleRealPathSync(fd);
}

/** handleRealPathSync is handleRealPath without the promise. */
export function handleRealPathSync(fd: number): string | undefined | typeof deletedEntry {
  let target: string;
  try {
    target = readlinkSync(procFdPath(fd));
  } catch {
    return undefined;
  }
  if (target.endsWith(" (deleted)") && !liveEntryNamed(target, fd)) {
    return deletedEntry;
  }
  return target;
}

/**
 * liveEntryNamed tells whether `target` (a /proc link ending in " (deleted)") is the live name of
 * the descriptor's entry rather than a removed one. The link count alone cannot tell: a file
 * whose in-root name was removed while another name (a hard link outside) remains has nlink 1,
 * and its link text still names the root. So the name is looked up, and only the very inode
 * (an lstat, a hint about a name, compared with the descriptor's own fstat) counts as live.
 */
function liveEntryNamed(target: string, fd: number): boolean {
  const held = fstatSync(fd);
  if (held.nlink === 0) {
    return false;
  }
  try {
    const named = lstatSync(target);
    return named.dev === held.dev && named.ino === held.ino;
  } catch {
    return false;
  }
}

/**
 * writableRootOf returns the root a real path lies in when that root may be written, else
 * undefined: a change needs the place it happens in to be writable, wherever it was reached from.
 */
export function writableRootOf(roots: readonly SandboxRoot[], realPath: string): SandboxRoot | undefined {
  const root = rootContaining(roots, realPath);
  return root !== undefined && !root.readOnly ? root : undefined;
}
