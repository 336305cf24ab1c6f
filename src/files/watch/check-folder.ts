import type { FairTurns } from "./fair-turns.js";
import { listInSlices, sliceEntries } from "./list-in-slices.js";
import type { EntryDiff, Seen } from "./pair-changes.js";
import { closeFolder, joinReal, lstatIn, openFolder, type WatchRoot } from "./held-folder.js";
import type { Dirty, WatchedFolder } from "./watched-folder.js";

/** Place is where an entry is: its folder's record, its name, and its path below the watched folder when it was looked at. */
export interface Place {
  readonly folder: WatchedFolder;
  readonly name: string;
  readonly rel: string;
}

/** CheckContext is what checkFolder needs of its WatchTree. */
export interface CheckContext {
  /** The watched folder's real path. */
  readonly top: string;
  readonly root: WatchRoot;
  readonly turns: FairTurns;
  readonly owner: string;
  readonly signal: AbortSignal;
  /** Names never tracked in a folder. */
  skip(folder: WatchedFolder, name: string): boolean;
  /** The watch ended: a listing in progress stops. */
  stopped(): boolean;
}

/**
 * checkFolder opens one folder of a batch again by its real path, verified (the kernel's path of
 * what was opened is that path, and it is the folder's own inode), and lstats the names reported
 * in it through that descriptor (or, past maxDirtyNames, lists it whole), one turn a slice:
 * a diff for each name that had or has an entry. False, with no diff, when the folder is not
 * where it was (moved, removed, swapped for a link).
 */
export async function checkFolder(
  folder: WatchedFolder,
  dirty: Dirty,
  ctx: CheckContext,
  diffs: EntryDiff<Place>[],
): Promise<boolean> {
  const { turns, owner, signal } = ctx;
  const rel = folder.rel;
  const held = await turns.run(owner, () => openFolder(joinReal(ctx.top, rel), ctx.root, folder), signal);
  if (held === undefined) return false;
  const depth = folder.depth;
  const add = (name: string, after: Seen | undefined, changed: boolean): void => {
    const before = folder.entries.get(name);
    if (before !== undefined || after !== undefined)
      diffs.push({ place: { folder, name, rel: rel === "" ? name : `${rel}/${name}` }, depth, before, after, changed });
  };
  try {
    if (dirty === "all") {
      const listed = new Set<string>();
      await listInSlices(
        held,
        turns,
        owner,
        signal,
        (name) => ctx.skip(folder, name),
        (slice) => {
          for (const { name, seen } of slice) {
            listed.add(name);
            add(name, seen, false);
          }
          return !ctx.stopped();
        },
      );
      for (const name of folder.entries.keys()) if (!listed.has(name)) add(name, undefined, false);
    } else {
      const names = [...dirty];
      for (let i = 0; i < names.length; i += sliceEntries) {
        await turns.run(
          owner,
          async () => {
            for (const [name, changed] of names.slice(i, i + sliceEntries))
              add(name, await lstatIn(held, name), changed);
          },
          signal,
        );
      }
    }
  } finally {
    await closeFolder(held);
  }
  return true;
}
