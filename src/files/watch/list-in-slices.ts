import type { Dir } from "node:fs";
import { opendir } from "node:fs/promises";
import type { FairTurns } from "./fair-turns.js";
import type { Seen } from "./pair-changes.js";
import { lstatIn, throwIfOutOfDescriptors } from "./watched-folder.js";

/** sliceEntries is how many entries one turn lists and lstats: a few milliseconds of work at most. */
export const sliceEntries = 64;

/** Listed is one entry a listing found, as its lstat through the held folder saw it. */
export interface Listed {
  readonly name: string;
  readonly seen: Seen;
}

/**
 * listInSlices lists the folder held by `fd` (read through that descriptor, never by name) a
 * slice at a time, each slice one FairTurns turn of `owner`: up to sliceEntries entries read and
 * lstat'ed one after another, so a folder of any size costs other callers at most one slice's
 * wait. `skip` leaves names out before their lstat; `onSlice` gets each slice and may stop the
 * listing by returning false. A folder that cannot be read lists as empty.
 */
export async function listInSlices(fd: number, turns: FairTurns, owner: string, signal: AbortSignal, skip: (name: string) => boolean, onSlice: (slice: Listed[]) => boolean): Promise<void> {
  const dir = await turns.run(owner, () => opendir(`/proc/self/fd/${fd}`, { bufferSize: sliceEntries }).catch((err: unknown) => (throwIfOutOfDescriptors(err), undefined)), signal);
  if (dir === undefined) return;
  try {
    let done = false;
    while (!done) {
      const slice = await turns.run(owner, () => readSlice(dir, fd, skip).then((r) => ((done = r.done), r.slice)), signal);
      if (!onSlice(slice)) return;
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
}

async function readSlice(dir: Dir, fd: number, skip: (name: string) => boolean): Promise<{ slice: Listed[]; done: boolean }> {
  const slice: Listed[] = [];
  // Skipped names cost a read but no lstat: a slice looks at a bounded number of them too.
  for (let looked = 0; looked < sliceEntries * 8 && slice.length < sliceEntries; looked++) {
    const dirent = await dir.read().catch((err: unknown) => (throwIfOutOfDescriptors(err), null));
    if (dirent === null) return { slice, done: true };
    if (skip(dirent.name)) continue;
    const seen = await lstatIn(fd, dirent.name);
    if (seen !== undefined) slice.push({ name: dirent.name, seen });
  }
  return { slice, done: false };
}
