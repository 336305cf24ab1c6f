import type { Dirent } from "node:fs";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { readAtMost } from "../read-at-most.js";
import { ignoreFileNames, maxIgnoreFileBytes } from "./ignore-rules.js";
import type { HeldDirectory } from "./held-directory.js";

/**
 * readIgnoreFiles returns the text of a folder's .gitignore and .ignore, read through the
 * sandbox's content path relative to the held directory, never following a link (`entries`, when
 * given, saves opening absent files); a file the content path refuses (a link, a FIFO, a hard link
 * unless allowed), over maxIgnoreFileBytes or unreadable is left out (its rules are not applied).
 */
export async function readIgnoreFiles(
  sandbox: Pick<Sandbox, "openContentAt">,
  dir: HeldDirectory,
  entries: readonly Dirent[] | undefined,
): Promise<string[]> {
  const texts: string[] = [];
  for (const name of ignoreFileNames) {
    if (entries !== undefined && !entries.some((e) => e.name === name && e.isFile())) continue;
    let opened;
    try {
      opened = await sandbox.openContentAt(dir, name, name);
      if (opened.stats.size > maxIgnoreFileBytes) continue;
      const { content, more } = await readAtMost(opened.handle, maxIgnoreFileBytes, opened.stats.size);
      if (!more) texts.push(content.toString("utf8"));
    } catch {
      // refused or unreadable: its rules are not applied
    } finally {
      await opened?.handle.close();
    }
  }
  return texts;
}
