import { fstatSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { openPath, reopenForReading } from "./path-handle.js";

/** OpenedIfRegular is what openIfRegular found: the open file, or what is there instead. */
export type OpenedIfRegular = { readonly handle: FileHandle; readonly stats: Stats } | { readonly handle: undefined; readonly stats: Stats };

/**
 * openIfRegular opens `path` (an entry named under a held directory) for reading only if it is a
 * regular file, and opens nothing else: an O_PATH|O_NOFOLLOW open first (no effect on what it
 * names), fstat, then the reopen through /proc/self/fd/N. Opening a FIFO releases a writer
 * blocked on it and opening a device may act on it, so an entry checked as a file and swapped
 * for one of those since must never be opened for reading by name. A link is not followed: its
 * Stats come back, as those of anything else that is not a regular file.
 */
export async function openIfRegular(path: string): Promise<OpenedIfRegular> {
  const held = await openPath(path);
  try {
    const stats = fstatSync(held.fd);
    if (!stats.isFile()) return { handle: undefined, stats };
    return { handle: await reopenForReading(held), stats };
  } finally {
    held.close();
  }
}
