import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resumeFilters } from "../../../src/files/search/walk/walk-position.js";
import type { PathMatcher } from "../../../src/files/search/path-globs.js";
import { seededRandom } from "../../support/seeded-random.js";

/** Folder is a tree in memory: files by name, sub-folders by name. */
interface Folder {
  readonly files: Set<string>;
  readonly folders: Map<string, Folder>;
}

const folder = (): Folder => ({ files: new Set(), folders: new Map() });
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** walk visits a tree as SyncWalk does: each folder's entries in name order, files handed over at once, sub-folders after; exclude asked of both, include of files. */
function walk(top: Folder, include?: PathMatcher, exclude?: PathMatcher): string[] {
  const out: string[] = [];
  const visit = (dir: Folder, prefix: string): void => {
    const names = [...dir.files, ...dir.folders.keys()].sort(byName);
    const later: string[] = [];
    for (const name of names) {
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      if (exclude?.(relative, name) === true) continue;
      if (dir.folders.has(name)) later.push(name);
      else if (include === undefined || include(relative, name)) out.push(relative);
    }
    for (const name of later) visit(dir.folders.get(name)!, prefix === "" ? name : `${prefix}/${name}`);
  };
  visit(top, "");
  return out;
}

describe("resumeFilters: a walk resumed after a file hands over exactly the files after it", () => {
  it("for every file of random trees with names that sort across case, digits and punctuation", () => {
    const random = seededRandom(7);
    const alphabet = ["a", "B", "b", "0", "-", ".", "_", "Z", "a b", "é"];
    const pick = (): string =>
      Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => alphabet[Math.floor(random() * alphabet.length)]!,
      ).join("");
    for (let trial = 0; trial < 30; trial++) {
      const top = folder();
      for (let i = 0; i < 60; i++) {
        let dir = top;
        const depth = Math.floor(random() * 4);
        for (let d = 0; d < depth; d++) {
          const name = `d${pick()}`;
          if (dir.files.has(name)) break;
          if (!dir.folders.has(name)) dir.folders.set(name, folder());
          dir = dir.folders.get(name)!;
        }
        const name = `f${pick()}`;
        if (!dir.folders.has(name)) dir.files.add(name);
      }
      const whole = walk(top);
      for (let k = 0; k < whole.length; k++) {
        const filters = resumeFilters(whole[k]!, undefined, undefined);
        assert.deepEqual(
          walk(top, filters.include, filters.exclude),
          whole.slice(k + 1),
          `trial ${trial}, after ${whole[k]}`,
        );
      }
    }
  });

  it("keeps the client's include and exclude globs", () => {
    const top = folder();
    top.files.add("a.txt").add("b.md").add("c.txt");
    const sub = folder();
    sub.files.add("x.txt").add("y.txt");
    top.folders.set("skip", folder());
    top.folders.get("skip")!.files.add("z.txt");
    top.folders.set("sub", sub);
    const filters = resumeFilters(
      "a.txt",
      (relative) => relative.endsWith(".txt"),
      (_, name) => name === "skip" || name === "y.txt",
    );
    assert.deepEqual(walk(top, filters.include, filters.exclude), ["c.txt", "sub/x.txt"]);
  });
});
