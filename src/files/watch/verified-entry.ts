import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { HeldDirectory } from "../search/held-directory.js";

/** lstatVerified lstats an entry through its folder opened and verified inside the roots; undefined when that fails. */
export async function lstatVerified(real: string, roots: readonly string[]): Promise<Stats | undefined> {
  const folder = await HeldDirectory.openVerified(path.dirname(real), roots);
  if (folder === undefined) return undefined;
  try {
    return await lstat(`/proc/self/fd/${folder.fd}/${path.basename(real)}`);
  } catch {
    return undefined;
  } finally {
    await folder.release();
  }
}

/** folderVerifies tells whether a folder opens (no link followed) with its real path inside the roots. */
export async function folderVerifies(real: string, roots: readonly string[]): Promise<boolean> {
  const folder = await HeldDirectory.openVerified(real, roots);
  await folder?.release();
  return folder !== undefined;
}
