import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { readlink } from "node:fs/promises";
import { rootContaining } from "./root-containing.js";
import type { SandboxRoot } from "./sandbox.js";

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
  let target: string;
  try {
    target = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return resolvedStats !== undefined && resolvedStats.dev === opened.dev && resolvedStats.ino === opened.ino;
  }
  return rootContaining(roots, target.replace(/ \(deleted\)$/, "")) !== undefined;
}

/** procFdPath is the /proc path naming an open descriptor, when /proc is available. */
export function procFdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/**
 * handleRealPath reads an open descriptor's real path from /proc/self/fd/N; undefined where /proc
 * is not mounted (non-Linux), which callers must treat as "cannot tell".
 */
export async function handleRealPath(fd: number): Promise<string | undefined> {
  try {
    return (await readlink(procFdPath(fd))).replace(/ \(deleted\)$/, "");
  } catch {
    return undefined;
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
