import { closeSync, readSync } from "node:fs";
import type { ContentRules } from "../../../sandbox/content/content-rules.js";
import { openContentAtSync } from "../../../sandbox/content/open-content.js";
import { ignoreFileNames, maxIgnoreFileBytes } from "../ignore-rules.js";
import { throwIfOutOfDescriptors } from "./out-of-descriptors.js";

/** ListedEntry is what the walk knows of a folder's entry: a Dirent, or the native listing's. */
export interface ListedEntry {
  readonly name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}

/**
 * readIgnoreFilesSync returns the text of a folder's .gitignore and .ignore, read through the
 * sandbox's content path under the search's rules (held relative to the folder's descriptor, never
 * following a link), for the synchronous walk (readIgnoreFiles is the same for the async callers);
 * only names listed in `entries` as plain files are opened, and one the rules refuse (a FIFO or
 * device swapped in, a hard link unless allowed), over maxIgnoreFileBytes or unreadable is left
 * out (its rules do not apply); one that cannot be read because the process is out of descriptors
 * or memory fails the walk (left out, its rules would let ignored files into the results).
 */
export function readIgnoreFilesSync(
  dirFd: number,
  entries: readonly ListedEntry[],
  rules: ContentRules,
  relativeDir: string,
): string[] {
  const texts: string[] = [];
  for (const name of ignoreFileNames) {
    if (!entries.some((e) => e.name === name && e.isFile())) continue;
    let fd: number | undefined;
    try {
      const opened = openContentAtSync(dirFd, name, name, rules);
      fd = opened.fd;
      if (opened.stats.size > maxIgnoreFileBytes) continue;
      // A byte more than the limit: a file that grew past it since its fstat is left out too.
      const buffer = Buffer.allocUnsafe(maxIgnoreFileBytes + 1);
      let length = 0;
      for (let n = 1; n > 0 && length < buffer.length; length += n)
        n = readSync(fd, buffer, length, buffer.length - length, length);
      if (length <= maxIgnoreFileBytes) texts.push(buffer.toString("utf8", 0, length));
    } catch (err) {
      throwIfOutOfDescriptors(err, relativeDir === "" ? name : `${relativeDir}/${name}`);
      // refused or unreadable: its rules are not applied
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return texts;
}
