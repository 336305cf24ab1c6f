import { constants, type Dirent } from "node:fs";
import { open } from "node:fs/promises";
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
      handle = await open(`/proc/self/fd/${dir.fd}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      const stats = await handle.stat();
      if (stats.isFile() && stats.nlink === 1 && stats.size <= maxIgnoreFileBytes) {
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
