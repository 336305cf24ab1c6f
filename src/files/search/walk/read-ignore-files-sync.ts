import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { O_PATH } from "../../../sandbox/path-handle.js";
import { ignoreFileNames, maxIgnoreFileBytes } from "../ignore-rules.js";

/** ListedEntry is what the walk knows of a folder's entry: a Dirent, or the native listing's. */
export interface ListedEntry {
  readonly name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}

/**
 * readIgnoreFilesSync returns the text of a folder's .gitignore and .ignore, read through the
 * folder's descriptor without following links, for the synchronous walk (readIgnoreFiles is the
 * same for the async callers); only names listed in `entries` as plain files are opened, and one
 * that is hard-linked, over maxIgnoreFileBytes or unreadable is left out (its rules do not apply).
 */
export function readIgnoreFilesSync(dirFd: number, entries: readonly ListedEntry[]): string[] {
  const texts: string[] = [];
  for (const name of ignoreFileNames) {
    if (!entries.some((e) => e.name === name && e.isFile())) continue;
    let fd: number | undefined;
    try {
      // Held with O_PATH and reopened only if regular: a FIFO or device swapped in is never opened.
      const held = openSync(`/proc/self/fd/${dirFd}/${name}`, O_PATH | constants.O_NOFOLLOW);
      try {
        if (!fstatSync(held).isFile()) continue;
        fd = openSync(`/proc/self/fd/${held}`, constants.O_RDONLY | constants.O_NONBLOCK);
      } finally {
        closeSync(held);
      }
      const stats = fstatSync(fd);
      if (stats.isFile() && stats.nlink === 1 && stats.size <= maxIgnoreFileBytes) texts.push(readFileSync(fd, "utf8"));
    } catch {
      // unreadable: its rules are not applied
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return texts;
}
