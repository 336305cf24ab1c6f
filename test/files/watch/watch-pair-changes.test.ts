import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pairChanges, type EntryDiff, type PairedChange, type Seen } from "../../../src/files/watch/pair-changes.js";

const file = (ino: number, size = 1, mtimeMs = 1): Seen => ({
  ino,
  dev: 1,
  kind: "file",
  size,
  mtimeMs,
  hardLinked: false,
});
const hardLinked = (ino: number): Seen => ({ ino, dev: 1, kind: "file", size: 0, mtimeMs: 0, hardLinked: true });
const dir = (ino: number): Seen => ({ ino, dev: 1, kind: "directory", size: 0, mtimeMs: 1, hardLinked: false });
const link = (ino: number): Seen => ({ ino, dev: 1, kind: "symlink", size: 0, mtimeMs: 1, hardLinked: false });
const diff = (
  place: string,
  before: Seen | undefined,
  after: Seen | undefined,
  changed = false,
): EntryDiff<string> => ({ place, depth: place.split("/").length - 1, before, after, changed });
const describeAll = (changes: PairedChange<string>[]): string[] =>
  changes.map((c) =>
    c.type === "renamed" ? `renamed ${c.from} -> ${c.place}` : `${c.type} ${c.place} ${c.entry.kind}`,
  );

describe("pairChanges: what a batch of per-name diffs amounts to", () => {
  it("reports a new name as created, a name gone as deleted, and nothing for a name that came and went", () => {
    assert.deepEqual(
      describeAll(
        pairChanges([diff("a", undefined, file(1)), diff("b", file(2), undefined), diff("c", undefined, undefined)]),
      ),
      ["deleted b file", "created a file"],
    );
  });

  it("pairs the same inode gone from one name and come at another as one rename", () => {
    assert.deepEqual(describeAll(pairChanges([diff("old", file(7), undefined), diff("new", undefined, file(7))])), [
      "renamed old -> new",
    ]);
    assert.deepEqual(describeAll(pairChanges([diff("d/x", file(7), undefined), diff("e/x", undefined, file(7))])), [
      "renamed d/x -> e/x",
    ]);
  });

  it("reports an atomic replace (another inode of the same kind in place) as one modification, with the new entry", () => {
    const changes = pairChanges([diff("a.txt", file(1, 3), file(2, 4))]);
    assert.deepEqual(describeAll(changes), ["modified a.txt file"]);
    assert.equal(changes[0]!.entry.size, 4);
  });

  it("reports a content change of the same inode, or a new size or mtime, as modified; the same entry unchanged as nothing", () => {
    assert.deepEqual(describeAll(pairChanges([diff("a", file(1), file(1), true)])), ["modified a file"]);
    assert.deepEqual(describeAll(pairChanges([diff("a", file(1, 1), file(1, 2))])), ["modified a file"]);
    assert.deepEqual(describeAll(pairChanges([diff("a", file(1, 1, 1), file(1, 1, 2))])), ["modified a file"]);
    assert.deepEqual(describeAll(pairChanges([diff("a", file(1), file(1))])), []);
    assert.deepEqual(describeAll(pairChanges([diff("d", dir(1), dir(1), true)])), [], "a folder is never modified");
  });

  it("reports a file that gained or lost a second name (its metadata withheld or shown again) as modified, with what may be shown", () => {
    const gained = pairChanges([diff("a", file(1, 39, 5), hardLinked(1))]);
    assert.deepEqual(describeAll(gained), ["modified a file"]);
    assert.deepEqual([gained[0]!.entry.size, gained[0]!.entry.hardLinked], [0, true]);
    assert.deepEqual(describeAll(pairChanges([diff("a", hardLinked(1), file(1, 39, 5))])), ["modified a file"]);
    assert.deepEqual(
      describeAll(pairChanges([diff("a", hardLinked(1), hardLinked(1))])),
      [],
      "a withheld file whose other name changes is not modified",
    );
  });

  it("reports an entry replaced by one of another kind (or a folder by a folder) as deleted, then created", () => {
    assert.deepEqual(describeAll(pairChanges([diff("x", file(1), dir(2))])), ["deleted x file", "created x directory"]);
    assert.deepEqual(describeAll(pairChanges([diff("d", dir(1), dir(2))])), [
      "deleted d directory",
      "created d directory",
    ]);
  });

  it("sends deletions deepest first, renames, then creations shallowest first", () => {
    const changes = pairChanges([
      diff("d", dir(1), undefined),
      diff("d/x", file(2), undefined),
      diff("n", undefined, dir(3)),
      diff("m/y", undefined, file(4)),
      diff("a", file(5), undefined),
      diff("b", undefined, file(5)),
    ]);
    assert.deepEqual(describeAll(changes), [
      "deleted d/x file",
      "deleted d directory",
      "renamed a -> b",
      "created n directory",
      "created m/y file",
    ]);
  });

  it("orders a chain of renames so that each target is freed first, and reports an exchange as two renames", () => {
    // mv b c; mv a b: the rename into b comes after the one out of it.
    const chain = pairChanges([
      diff("a", file(1), undefined),
      diff("b", file(2), file(1)),
      diff("c", undefined, file(2)),
    ]);
    assert.deepEqual(describeAll(chain), ["renamed b -> c", "renamed a -> b"]);
    // renameat2(RENAME_EXCHANGE) of a folder and a symlink
    const exchange = pairChanges([diff("sub", dir(1), link(2)), diff("link", link(2), dir(1))]);
    assert.deepEqual(describeAll(exchange).sort(), ["renamed link -> sub", "renamed sub -> link"]);
  });

  it("keeps a rename and a new entry at the freed name apart: mv a b, then a new a", () => {
    assert.deepEqual(describeAll(pairChanges([diff("a", file(1), file(3)), diff("b", undefined, file(1))])), [
      "renamed a -> b",
      "created a file",
    ]);
  });

  it("handles a chain of 100,000 renames in one batch without deep recursion", () => {
    const n = 100_000;
    const diffs = [
      diff("f0", file(0), undefined),
      ...Array.from({ length: n - 1 }, (_, i) => diff(`f${i + 1}`, file(i + 1), file(i))),
      diff(`f${n}`, undefined, file(n - 1)),
    ];
    const changes = pairChanges(diffs);
    assert.equal(changes.length, n);
    assert.deepEqual(describeAll(changes.slice(0, 2)), [
      `renamed f${n - 1} -> f${n}`,
      `renamed f${n - 2} -> f${n - 1}`,
    ]);
  });
});
