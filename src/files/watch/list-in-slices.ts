import { opendirSync, type Dir, type Dirent } from "node:fs";
import { opendir } from "node:fs/promises";
import type { FairTurns } from "./fair-turns.js";
import { lstatIn, throwIfOutOfDescriptors, type HeldFolder } from "./held-folder.js";
import type { Seen } from "./watch-types.js";

/** sliceEntries is how many entries one turn lists and lstats: well under a millisecond in place, a few on the thread pool. */
export const sliceEntries = 64;

/** Listed is one entry a listing found, as its lstat through the held folder saw it. */
export interface Listed {
  readonly name: string;
  readonly seen: Seen;
}

/**
 * listInSlices lists a held folder (read through its descriptor, never by name) a slice at a
 * time, each slice one FairTurns turn of `owner`: up to sliceEntries entries read and lstat'ed
 * one after another, in place when the folder is local, so a folder of any size costs other
 * callers at most one slice's wait. `skip` leaves names out before their lstat; `onSlice` gets
 * each slice and may stop the listing by returning false. A folder that cannot be read lists as
 * empty.
 */
export async function listInSlices(
  held: HeldFolder,
  turns: FairTurns,
  owner: string,
  signal: AbortSignal,
  skip: (name: string) => boolean,
  onSlice: (slice: Listed[]) => boolean,
): Promise<void> {
  const at = `/proc/self/fd/${held.fd}`;
  const dir = await turns.run(
    owner,
    async () => {
      try {
        return held.local
          ? opendirSync(at, { bufferSize: sliceEntries })
          : await opendir(at, { bufferSize: sliceEntries });
      } catch (err) {
        throwIfOutOfDescriptors(err);
        return undefined;
      }
    },
    signal,
  );
  if (dir === undefined) return;
  try {
    let done = false;
    while (!done) {
      const slice = await turns.run(
        owner,
        () => readSlice(dir, held, skip).then((r) => ((done = r.done), r.slice)),
        signal,
      );
      if (!onSlice(slice)) return;
    }
  } finally {
    if (held.local) dir.closeSync();
    else await dir.close().catch(() => undefined);
  }
}

async function readSlice(
  dir: Dir,
  held: HeldFolder,
  skip: (name: string) => boolean,
): Promise<{ slice: Listed[]; done: boolean }> {
  const slice: Listed[] = [];
  // Skipped names cost a read but no lstat: a slice looks at a bounded number of them too.
  for (let looked = 0; looked < sliceEntries * 8 && slice.length < sliceEntries; looked++) {
    let dirent: Dirent | null;
    try {
      dirent = held.local ? dir.readSync() : await dir.read();
    } catch (err) {
      throwIfOutOfDescriptors(err);
      dirent = null;
    }
    if (dirent === null) return { slice, done: true };
    if (skip(dirent.name)) continue;
    const seen = await lstatIn(held, dirent.name);
    if (seen !== undefined) slice.push({ name: dirent.name, seen });
  }
  return { slice, done: false };
}
