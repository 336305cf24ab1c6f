import type { Dirent } from "node:fs";
import { openIfRegular } from "../../sandbox/open-if-regular.js";
import { ignoreFileNames, maxIgnoreFileBytes } from "./ignore-rules.js";
import type { HeldDirectory } from "./held-directory.js";

/**
 * readIgnoreFiles returns the text of a folder's .gitignore and .ignore, read through the held
 * directory without following links (`entries`, when given, saves opening absent files); a file that is a link, hard-linked, over
 * maxIgnoreFileBytes or unreadable is left out (its rules are not applied).
 */
export async function readIgnoreFiles(dir: HeldDirectory, entries: readonly Dirent[] | undefined): Promise<string[]> {
  const texts: string[] = [];
  for (const name of ignoreFileNames) {
    if (entries !== undefined && !entries.some((e) => e.name === name && e.isFile())) continue;
    let handle;
    try {
      // Opened only if regular: a FIFO or device swapped in is never opened.
      const opened = await openIfRegular(`/proc/self/fd/${dir.fd}/${name}`);
      handle = opened.handle;
      if (handle === undefined) continue;
      const stats = await handle.stat();
      if (stats.nlink === 1 && stats.size <= maxIgnoreFileBytes) {
        texts.push(await handle.readFile("utf8"));
      }
    } catch {
      // unreadable: its rules are not applied
    } finally {
      await handle?.close();
    }
  }
  return texts;
}
