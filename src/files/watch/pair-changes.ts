import type { Seen, TreeChange } from "./watch-types.js";

export type { Seen } from "./watch-types.js";

/** EntryDiff is one name of a batch: what was known of it before and what is there now. */
export interface EntryDiff<P> {
  readonly place: P;
  /** How deep the place lies below the watched folder (0 for its own entries). */
  readonly depth: number;
  readonly before: Seen | undefined;
  readonly after: Seen | undefined;
  /** A content change was reported for the name (the entry may be the same inode). */
  readonly changed: boolean;
}

/** PairedChange is what a batch of diffs amounts to, in an order a client can apply one by one. */
export type PairedChange<P> =
  | { readonly type: "created" | "modified"; readonly place: P; readonly entry: Seen }
  | { readonly type: "deleted"; readonly place: P; readonly entry: Seen }
  | { readonly type: "renamed"; readonly from: P; readonly place: P; readonly entry: Seen };

/**
 * pairChanges turns one batch of per-name diffs into events: an entry gone from one place and the
 * same inode come at another is one rename; an entry replaced in place by another of its kind
 * (an atomic save: a temporary file renamed over the target) is one modification, as is a content
 * change of the same inode; anything else gone is a deletion and anything else come a creation.
 *
 * Order: deletions (deepest first, so a folder's entries before the folder), then renames (a
 * rename that frees a place before the one that takes it), then modifications and creations
 * (shallowest first, so a folder before its entries).
 */
export function pairChanges<P>(diffs: readonly EntryDiff<P>[]): PairedChange<P>[] {
  const goneByInode = new Map<string, EntryDiff<P>>();
  for (const d of diffs) if (d.before !== undefined && moved(d)) goneByInode.set(inodeKey(d.before), d);
  const renamedFrom = new Map<EntryDiff<P>, EntryDiff<P>>(); // came diff -> gone diff
  const pairedGone = new Set<EntryDiff<P>>();
  for (const d of diffs) {
    if (d.after === undefined || !moved(d)) continue;
    const from = goneByInode.get(inodeKey(d.after));
    if (from === undefined || from === d || pairedGone.has(from)) continue;
    pairedGone.add(from);
    renamedFrom.set(d, from);
  }
  const deletions: { depth: number; change: PairedChange<P> }[] = [];
  const rest: { depth: number; change: PairedChange<P> }[] = [];
  for (const d of diffs) {
    const { before, after } = d;
    if (before !== undefined && after !== undefined && !moved(d)) {
      if (
        after.kind !== "directory" &&
        (d.changed ||
          before.size !== after.size ||
          before.mtimeMs !== after.mtimeMs ||
          before.hardLinked !== after.hardLinked)
      )
        rest.push({ depth: d.depth, change: { type: "modified", place: d.place, entry: after } });
      continue;
    }
    const goneHere = before !== undefined && !pairedGone.has(d);
    const cameHere = after !== undefined && !renamedFrom.has(d);
    if (goneHere && cameHere && before.kind === after.kind && after.kind !== "directory") {
      rest.push({ depth: d.depth, change: { type: "modified", place: d.place, entry: after } });
      continue;
    }
    if (goneHere) deletions.push({ depth: d.depth, change: { type: "deleted", place: d.place, entry: before } });
    if (cameHere) rest.push({ depth: d.depth, change: { type: "created", place: d.place, entry: after } });
  }
  deletions.sort((a, b) => b.depth - a.depth);
  rest.sort((a, b) => a.depth - b.depth);
  return [...deletions.map((x) => x.change), ...orderRenames(renamedFrom), ...rest.map((x) => x.change)];
}

/** moved tells whether a diff's name now holds another entry than before (or only one of them exists). */
function moved<P>(d: EntryDiff<P>): boolean {
  return (
    d.before === undefined ||
    d.after === undefined ||
    d.before.ino !== d.after.ino ||
    d.before.dev !== d.after.dev ||
    d.before.kind !== d.after.kind
  );
}

function inodeKey(seen: Seen): string {
  return `${seen.dev}:${seen.ino}`;
}

/** orderRenames puts each rename after the rename that moves away what was at its target (a cycle, an exchange, in any order). */
function orderRenames<P>(renamedFrom: ReadonlyMap<EntryDiff<P>, EntryDiff<P>>): PairedChange<P>[] {
  const bySource = new Map<EntryDiff<P>, EntryDiff<P>>(); // gone diff -> came diff
  for (const [came, gone] of renamedFrom) bySource.set(gone, came);
  const out: PairedChange<P>[] = [];
  const done = new Set<EntryDiff<P>>();
  for (const first of renamedFrom.keys()) {
    // Follow the chain of renames that free each target, then emit it from its far end.
    const chain: EntryDiff<P>[] = [];
    for (let came: EntryDiff<P> | undefined = first; came !== undefined && !done.has(came); came = bySource.get(came)) {
      done.add(came);
      chain.push(came);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const came = chain[i]!;
      out.push({ type: "renamed", from: renamedFrom.get(came)!.place, place: came.place, entry: came.after! });
    }
  }
  return out;
}

/** sameInode tells whether `b` is the inode `a` names. */
export function sameInode(a: { readonly ino: number; readonly dev: number }, b: Seen | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.dev === b.dev;
}

/** treeChangeOf is a paired change as the tree reports it: paths below the watched folder. */
export function treeChangeOf(change: PairedChange<{ readonly rel: string }>): TreeChange {
  if (change.type === "renamed")
    return { type: "renamed", rel: change.place.rel, oldRel: change.from.rel, entry: change.entry };
  return { type: change.type, rel: change.place.rel, entry: change.entry };
}
