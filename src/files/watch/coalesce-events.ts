import type { EntryKind } from "./watch-types.js";

/** RawChange is one filesystem change as the watcher saw it, before coalescing. */
export interface RawChange {
  readonly type: "created" | "modified" | "deleted";
  /** Path relative to the watched folder. */
  readonly path: string;
  readonly kind: EntryKind;
  readonly size: number;
  /** Inode of the entry (for a deletion: the inode it had when last seen), 0 when unknown. */
  readonly ino: number;
}

/** CoalescedChange is what a burst of raw changes to the tree amounts to. */
export type CoalescedChange = RawChange | { readonly type: "renamed"; readonly path: string; readonly oldPath: string; readonly kind: EntryKind; readonly size: number; readonly ino: number };

/**
 * coalesceChanges reduces the raw changes of one debounce window to what a client should see:
 * per path, created+modified is created, created+deleted is nothing, deleted+created is one
 * modification (an atomic replace), repeated modifications are one; and a deletion paired with
 * a creation of the same inode under another path is one rename. Order follows each path's
 * first change.
 */
export function coalesceChanges(raw: readonly RawChange[]): CoalescedChange[] {
  const byPath = new Map<string, RawChange | undefined>();
  for (const change of raw) {
    const before = byPath.get(change.path);
    byPath.set(change.path, before === undefined && !byPath.has(change.path) ? change : merge(before, change));
  }
  const changes = [...byPath.values()].filter((c): c is RawChange => c !== undefined);
  const deletedByIno = new Map<number, RawChange>();
  for (const c of changes) if (c.type === "deleted" && c.ino !== 0) deletedByIno.set(c.ino, c);
  const out: CoalescedChange[] = [];
  const paired = new Set<RawChange>();
  for (const c of changes) {
    if (c.type === "created" && c.ino !== 0) {
      const from = deletedByIno.get(c.ino);
      if (from !== undefined && !paired.has(from)) {
        paired.add(from);
        out.push({ type: "renamed", path: c.path, oldPath: from.path, kind: c.kind, size: c.size, ino: c.ino });
        continue;
      }
    }
    out.push(c);
  }
  return out.filter((c) => !paired.has(c as RawChange));
}

function merge(before: RawChange | undefined, next: RawChange): RawChange | undefined {
  if (before === undefined) {
    // created then deleted earlier in the window: a new creation stands on its own
    return next;
  }
  if (before.type === "created") {
    if (next.type === "deleted") return undefined;
    return { ...next, type: "created" };
  }
  if (before.type === "deleted") {
    if (next.type === "created") return { ...next, type: "modified" };
    return next;
  }
  // before modified
  return next.type === "created" ? { ...next, type: "modified" } : next;
}
