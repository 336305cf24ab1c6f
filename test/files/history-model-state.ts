/**
 * The in-memory model the history property tests run FileTools against: a tree of files and
 * folders, every path's list of recorded changes, and the rules of UndoLastChange written from
 * the contract (docs/tools.md), not from the implementation. Each operation returns what it
 * expects — success (with its effect, applied by `apply`) or failure (with the exact reason for
 * UndoLastChange, "any" for the others, whose refusals other tests cover) — and changes the
 * model only when `apply` is called, once the real call agreed.
 */

export type MState =
  | { readonly type: "none" }
  | { readonly type: "file"; readonly content: string }
  | { readonly type: "directory" };

export type MOperation =
  | "write"
  | "upload"
  | "edit"
  | "delete"
  | "move"
  | "copy"
  | "mkdir"
  | "rmdir"
  | "patch"
  | "restore";

/** MEntry is one path's part in a change: what it held before and after, and folder entry counts. */
export interface MEntry {
  readonly path: string;
  readonly before: MState;
  readonly after: MState;
  readonly entriesBefore?: number;
  readonly entriesAfter?: number;
  /** The file before was over max_file_bytes and the change did not hash it (a delete, what a move or copy replaced). */
  readonly beforeUnhashed?: boolean;
}

/** MChange is one recorded change: one path, a move (from, to), or several files (a patch). */
export interface MChange {
  readonly id: number;
  readonly kind: "single" | "move" | "group";
  readonly entries: readonly MEntry[];
  readonly from?: string;
  readonly to?: string;
}

/** MRecord is one entry of a path's ListFileHistory, as the model expects it. */
export interface MRecord {
  readonly operation: MOperation;
  readonly change: MChange;
  readonly entry: MEntry;
  readonly movedTo: string;
  readonly movedFrom: string;
}

/** Expected is what the model expects of a call. */
export type Expected<T = undefined> =
  | { readonly ok: true; readonly apply: () => void; readonly answer: T }
  | { readonly ok: false; readonly reason: string; readonly why: string };

/** UndoAnswer is what a successful UndoLastChange must answer. */
export interface UndoAnswer {
  readonly removed: boolean;
  readonly content: string | undefined;
  readonly otherPaths: readonly string[];
  readonly undone: MRecord;
}

const none: MState = { type: "none" };
const folder: MState = { type: "directory" };
const fails = (why: string, reason = "any"): Expected<never> => ({ ok: false, reason, why });

/** ancestors lists the folders a path lies in, outermost first, the root ("") left out. */
export function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

function parentOf(path: string): string {
  return ancestors(path).at(-1) ?? "";
}

function inside(path: string, dir: string): boolean {
  return path.startsWith(`${dir}/`);
}

export class HistoryModel {
  readonly tree = new Map<string, MState>();
  readonly records = new Map<string, MRecord[]>();
  private changes = 0;

  constructor(readonly maxFileBytes: number) {}

  state(path: string): MState {
    return path === "" ? folder : (this.tree.get(path) ?? none);
  }

  /** stored tells whether a content is in the history's store: every content a change found is, up to max_file_bytes. */
  stored(content: string): boolean {
    return Buffer.byteLength(content) <= this.maxFileBytes;
  }

  /** beforeAvailable is ListFileHistory's before_available for a record. */
  beforeAvailable(record: MRecord): boolean {
    const before = record.entry.before;
    if (before.type === "file") return this.stored(before.content);
    return before.type === "directory" && record.movedTo === "" && (record.entry.entriesBefore ?? 0) === 0;
  }

  /** unhashed marks a file before that a change captured without its hash: one over max_file_bytes. */
  private unhashed(before: MState): { beforeUnhashed?: true } {
    return before.type === "file" && !this.stored(before.content) ? { beforeUnhashed: true } : {};
  }

  below(dir: string): string[] {
    return [...this.tree.keys()].filter((p) => inside(p, dir)).sort();
  }

  /** placeable tells whether an entry can be made at `path`: no file on the way, and its folder there (or made, with `parents`). */
  private placeable(path: string, parents: boolean): boolean {
    for (const dir of ancestors(path)) {
      const state = this.state(dir);
      if (state.type === "file") return false;
      if (state.type === "none" && !parents) return false;
    }
    return true;
  }

  private fileOnTheWay(path: string): boolean {
    return ancestors(path).some((dir) => this.state(dir).type === "file");
  }

  private makeParents(path: string): void {
    for (const dir of ancestors(path)) if (this.state(dir).type === "none") this.tree.set(dir, folder);
  }

  private record(
    operation: MOperation,
    kind: MChange["kind"],
    entries: MEntry[],
    move?: { from: string; to: string },
  ): void {
    const change: MChange = { id: ++this.changes, kind, entries, ...move };
    for (const entry of entries) {
      const list = this.records.get(entry.path) ?? [];
      list.push({
        operation,
        change,
        entry,
        movedTo: move?.from === entry.path ? move.to : "",
        movedFrom: move?.to === entry.path ? move.from : "",
      });
      this.records.set(entry.path, list);
    }
  }

  private put(path: string, state: MState): void {
    if (state.type === "none") this.tree.delete(path);
    else this.tree.set(path, state);
  }

  write(operation: "write" | "upload" | "restore", path: string, content: string, parents: boolean): Expected {
    const before = this.state(path);
    if (before.type === "directory" || !this.placeable(path, parents))
      return fails("a folder there, or no folder for it");
    return {
      ok: true,
      answer: undefined,
      apply: () => {
        this.makeParents(path);
        this.tree.set(path, { type: "file", content });
        this.record(operation, "single", [{ path, before, after: { type: "file", content } }]);
      },
    };
  }

  edit(path: string, text: string): Expected {
    const before = this.state(path);
    if (before.type !== "file") return fails("no file to edit");
    const after: MState = { type: "file", content: before.content + text };
    return {
      ok: true,
      answer: undefined,
      apply: () => (this.tree.set(path, after), this.record("edit", "single", [{ path, before, after }])),
    };
  }

  delete(path: string): Expected {
    const before = this.state(path);
    if (before.type === "directory" || this.fileOnTheWay(path)) return fails("a folder, or a file on the way");
    if (before.type === "none") return { ok: true, answer: undefined, apply: () => undefined };
    return {
      ok: true,
      answer: undefined,
      apply: () => (
        this.tree.delete(path),
        this.record("delete", "single", [{ path, before, after: none, ...this.unhashed(before) }])
      ),
    };
  }

  mkdir(path: string, parents: boolean): Expected {
    const before = this.state(path);
    if (before.type === "directory" && !this.fileOnTheWay(path))
      return { ok: true, answer: undefined, apply: () => undefined };
    if (before.type === "file" || !this.placeable(path, parents))
      return fails("a file there or on the way, or no folder for it");
    return {
      ok: true,
      answer: undefined,
      apply: () => {
        this.makeParents(path);
        this.tree.set(path, folder);
        this.record("mkdir", "single", [{ path, before: none, after: folder, entriesAfter: 0 }]);
      },
    };
  }

  rmdir(path: string, recursive: boolean): Expected {
    const before = this.state(path);
    if (this.fileOnTheWay(path) || before.type === "file") return fails("a file there or on the way");
    if (before.type === "none") return { ok: true, answer: undefined, apply: () => undefined };
    const below = this.below(path);
    if (below.length > 0 && !recursive) return fails("not empty");
    return {
      ok: true,
      answer: undefined,
      apply: () => {
        for (const p of [...below, path]) this.tree.delete(p);
        this.record("rmdir", "single", [{ path, before, after: none, entriesBefore: below.length }]);
      },
    };
  }

  move(from: string, to: string, overwrite: boolean, parents: boolean): Expected {
    const moved = this.state(from);
    const replaced = this.state(to);
    if (from === to || inside(to, from)) return fails("into itself");
    if (moved.type === "none" || this.fileOnTheWay(from) || !this.placeable(to, parents))
      return fails("nothing to move, or no folder for it");
    if (replaced.type !== "none") {
      if (!overwrite || moved.type !== replaced.type) return fails("taken");
      if (replaced.type === "directory" && this.below(to).length > 0) return fails("a folder that is not empty");
    }
    return {
      ok: true,
      answer: undefined,
      apply: () => {
        this.makeParents(to);
        this.moveTree(from, to);
        this.record(
          "move",
          "move",
          [
            { path: from, before: moved, after: none },
            { path: to, before: replaced, after: moved, ...this.unhashed(replaced) },
          ],
          { from, to },
        );
      },
    };
  }

  /** moveTree moves the entry at `from` with everything below it to `to`, replacing what is there. */
  private moveTree(from: string, to: string): void {
    const moving = [from, ...this.below(from)].map((p) => [p, this.state(p)] as const);
    for (const p of [to, ...this.below(to)]) this.tree.delete(p);
    for (const [p] of moving) this.tree.delete(p);
    for (const [p, state] of moving) this.tree.set(to + p.slice(from.length), state);
  }

  copy(from: string, to: string, overwrite: boolean, recursive: boolean): Expected {
    const source = this.state(from);
    const replaced = this.state(to);
    if (from === to || inside(to, from)) return fails("into itself");
    if (source.type === "none" || this.fileOnTheWay(from) || !this.placeable(to, false))
      return fails("nothing to copy, or no folder for it");
    if (source.type === "directory" && (!recursive || replaced.type !== "none"))
      return fails("a folder without recursive, or over something");
    if (source.type === "file" && replaced.type !== "none" && (!overwrite || replaced.type === "directory"))
      return fails("taken");
    const below = source.type === "directory" ? this.below(from) : [];
    return {
      ok: true,
      answer: undefined,
      apply: () => {
        for (const p of [from, ...below]) this.tree.set(to + p.slice(from.length), this.state(p));
        this.record("copy", "single", [
          {
            path: to,
            before: replaced,
            after: source,
            ...this.unhashed(replaced),
            ...(source.type === "directory" ? { entriesAfter: below.length } : {}),
          },
        ]);
      },
    };
  }

  /** patch expects an ApplyPatch of `sections` (distinct paths), checked whole before anything is written. */
  patch(sections: readonly PatchSection[]): Expected {
    const entries: MEntry[] = [];
    for (const s of sections) {
      const before = this.state(s.path);
      if (s.kind === "add") {
        if (before.type !== "none" || !this.placeable(s.path, true)) return fails("add over something");
        entries.push({ path: s.path, before, after: { type: "file", content: s.content } });
        continue;
      }
      if (before.type !== "file") return fails("no file to change");
      if (s.kind === "delete") {
        entries.push({ path: s.path, before, after: none });
        continue;
      }
      const first = before.content.split("\n")[0]!;
      if (before.content === "" || first === s.line) return fails("nothing to replace");
      const after: MState = { type: "file", content: s.line + before.content.slice(first.length) };
      if (s.kind === "update") {
        entries.push({ path: s.path, before, after });
        continue;
      }
      const target = this.state(s.moveTo);
      if (target.type !== "none" || !this.placeable(s.moveTo, true)) return fails("move over something");
      entries.push({ path: s.moveTo, before: target, after }, { path: s.path, before, after: none });
    }
    return {
      ok: true,
      answer: undefined,
      apply: () => {
        for (const e of entries) {
          if (e.after.type !== "none") this.makeParents(e.path);
          this.put(e.path, e.after);
        }
        this.record("patch", entries.length > 1 ? "group" : "single", entries);
      },
    };
  }

  /** restoreChoices are the contents RestoreFile may put back at `path`: those its changes found there. */
  restoreChoices(path: string): string[] {
    return (this.records.get(path) ?? []).flatMap((r) =>
      r.entry.before.type === "file" ? [r.entry.before.content] : [],
    );
  }

  restore(path: string, content: string): Expected {
    if (!this.restoreChoices(path).includes(content) || !this.stored(content))
      return fails("not in the history", "NOT_IN_HISTORY");
    return this.write("restore", path, content, true);
  }

  /**
   * undo expects UndoLastChange: the newest change of `path` undone at every path it touched,
   * only if nothing is lost, in the order of checks the contract gives (docs/tools.md).
   */
  undo(path: string): Expected<UndoAnswer> {
    const last = this.records.get(path)?.at(-1);
    if (last === undefined) return fails("nothing recorded", "NOT_IN_HISTORY");
    const change = last.change;
    const movedAway = (e: MEntry) => change.kind === "move" && e.path === change.from;
    const movedHere = (e: MEntry) => change.kind === "move" && e.path === change.to;
    // 0. Every other path of the change has it as its newest change: a later change there (even
    // one undone since) comes first, whatever the path holds now.
    for (const e of change.entries) {
      if (e.path !== path && this.records.get(e.path)?.at(-1)?.change !== change)
        return fails(`${e.path} has a later change`, "PRECONDITION_FAILED");
    }
    // 1. What the change found must be restorable; what it left, removable without loss.
    for (const e of change.entries) {
      if (!movedAway(e)) {
        if (e.before.type === "file" && !this.stored(e.before.content))
          return fails("the content before is not stored", "UNDO_UNAVAILABLE");
        if (e.before.type === "directory" && (e.entriesBefore ?? 0) > 0)
          return fails("a folder removed with entries", "UNDO_UNAVAILABLE");
      }
      if (!movedHere(e) && e.after.type === "directory" && (e.entriesAfter ?? 0) > 0)
        return fails("a folder made with entries", "UNDO_UNAVAILABLE");
    }
    // 2. Every path as the change left it; a path that gets an entry back has its folder.
    for (const e of change.entries) {
      const now = this.state(e.path);
      if (!sameState(now, e.after)) return fails(`${e.path} changed since`, "PRECONDITION_FAILED");
      if (now.type === "none" && e.before.type !== "none" && this.state(parentOf(e.path)).type !== "directory")
        return fails(`the folder of ${e.path} is gone`, "PRECONDITION_FAILED");
    }
    // 3. What the undo takes away must fit the store.
    for (const e of change.entries) {
      const now = this.state(e.path);
      if (now.type === "file" && !movedHere(e) && !this.stored(now.content))
        return fails(`${e.path} is over max_file_bytes`, "UNDO_UNAVAILABLE");
    }
    // 4. A folder the undo removes must be empty: what a move's source holds now, or a folder the change made.
    for (const e of change.entries) {
      const removed = movedAway(e) || (!movedHere(e) && e.before.type !== "directory");
      if (removed && this.state(e.path).type === "directory" && this.below(e.path).length > 0)
        return fails(`the folder ${e.path} is not empty`, "PRECONDITION_FAILED");
    }
    const requested = change.entries.find((e) => e.path === path)!;
    const answer: UndoAnswer = {
      removed: requested.before.type === "none",
      content: requested.before.type === "file" ? requested.before.content : undefined,
      otherPaths: change.entries.filter((e) => e !== requested).map((e) => e.path),
      undone: last,
    };
    return { ok: true, answer, apply: () => this.applyUndo(change) };
  }

  private applyUndo(change: MChange): void {
    if (change.kind === "move") {
      const from = change.entries.find((e) => e.path === change.from)!;
      const to = change.entries.find((e) => e.path === change.to)!;
      const fromNow = this.state(from.path);
      const moved = this.state(to.path);
      this.tree.delete(from.path);
      this.moveTree(to.path, from.path);
      this.put(to.path, to.before);
      this.record(
        "restore",
        "move",
        [
          { path: to.path, before: moved, after: to.before },
          { path: from.path, before: fromNow, after: moved },
        ],
        { from: to.path, to: from.path },
      );
      return;
    }
    const entries = change.entries.map((e) => ({
      path: e.path,
      before: this.state(e.path),
      after: e.before,
      ...(e.entriesAfter === undefined ? {} : { entriesBefore: e.entriesAfter }),
      ...(e.entriesBefore === undefined ? {} : { entriesAfter: e.entriesBefore }),
    }));
    for (const e of entries) this.put(e.path, e.after);
    this.record("restore", change.kind, entries);
  }
}

/** sameState compares a path's state with a recorded one: a folder by type only, a file by content. */
export function sameState(a: MState, b: MState): boolean {
  if (a.type !== b.type) return false;
  return a.type !== "file" || a.content === (b as { content: string }).content;
}

/** PatchSection is one section of a generated patch. */
export type PatchSection =
  | { readonly kind: "add"; readonly path: string; readonly content: string }
  | { readonly kind: "delete"; readonly path: string }
  | { readonly kind: "update"; readonly path: string; readonly line: string }
  | { readonly kind: "move"; readonly path: string; readonly moveTo: string; readonly line: string };

/** patchText writes sections in the `*** Begin Patch` format. */
export function patchText(sections: readonly PatchSection[], model: HistoryModel): string {
  const lines = ["*** Begin Patch"];
  for (const s of sections) {
    if (s.kind === "add") {
      lines.push(
        `*** Add File: ${s.path}`,
        ...s.content
          .split("\n")
          .slice(0, -1)
          .map((l) => `+${l}`),
      );
    } else if (s.kind === "delete") {
      lines.push(`*** Delete File: ${s.path}`);
    } else {
      const state = model.state(s.path);
      const first = state.type === "file" ? state.content.split("\n")[0]! : "missing";
      lines.push(
        `*** Update File: ${s.path}`,
        ...(s.kind === "move" ? [`*** Move to: ${s.moveTo}`] : []),
        "@@",
        `-${first}`,
        `+${s.line}`,
      );
    }
  }
  lines.push("*** End Patch");
  return lines.join("\n");
}
