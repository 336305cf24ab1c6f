import { constants, type Dirent } from "node:fs";
import { open } from "node:fs/promises";
import { ignoreFileNames, maxIgnoreFileBytes } from "./ignore-rules.js";
import type { HeldDirectory } from "./held-directory.js";

/** O_PATH opens an entry without opening what it is (Linux). */
const O_PATH = 0o10000000;

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
      // Held with O_PATH and reopened only if regular: a FIFO or device is never opened.
      const held = await open(`/proc/self/fd/${dir.fd}/${name}`, O_PATH | constants.O_NOFOLLOW);
      try {
        if (!(await held.stat()).isFile()) continue;
        handle = await open(`/proc/self/fd/${held.fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
      } finally {
        await held.close();
      }
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
