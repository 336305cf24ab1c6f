import assert from "node:assert/strict";
import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { watchSkillRoots, type RootWatcher } from "../../src/skills/catalog/watch-skill-roots.js";
import { isInside } from "../../src/skills/load/is-inside.js";
import { waitFor } from "../support/wait-for.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

// One link skills/usrlink -> /usr once made the watcher follow it: 61,508 inotify watches and
// 739 MB. The catalog never serves anything outside a root, so the watcher must not watch it.

/** bigTree makes `count` folders with a file each under a fresh folder outside any root. */
async function bigTree(count: number): Promise<string> {
  const base = await realpath(await tempDir("outside"));
  await Promise.all(Array.from({ length: count }, (_, i) => writeFiles(base, { [`d${i}/sub/f.txt`]: "x" })));
  return base;
}

/** watching runs `fn` with a watcher over `roots` and closes it afterwards. */
async function watching(
  roots: string[],
  fn: (watcher: RootWatcher, changes: () => number) => Promise<void>,
): Promise<void> {
  let changes = 0;
  const watcher = watchSkillRoots(roots, () => (changes += 1), { debounceMs: 20 });
  try {
    await watcher.ready;
    await fn(watcher, () => changes);
  } finally {
    await watcher.close();
  }
}

const until = (check: () => boolean): Promise<true> => waitFor("the watcher to report a change", check);

describe("watchSkillRoots", () => {
  it("does not watch a big tree behind a link that leaves the root", async () => {
    const outside = await bigTree(200);
    const root = await realpath(await tempDir("watch-root"));
    await writeFiles(root, { "a/SKILL.md": skillMd("local/a", "d") });
    await symlink(outside, join(root, "usrlink"));
    await watching([root], async (watcher) => {
      const folders = Object.keys(watcher.watched());
      assert.deepEqual(
        folders.filter((f) => isInside(outside, f) || isInside(join(root, "usrlink"), f)),
        [],
      );
      // The root's parent, the root and a/ (the link itself is an entry of the root).
      assert.ok(folders.length <= 4, `watched ${folders.length} folders: ${folders.join(", ")}`);
    });
  });

  it("still sees a change to a skill reached through a link inside the root", async () => {
    const root = await realpath(await tempDir("watch-inner"));
    await writeFiles(root, { "real/a/SKILL.md": skillMd("local/a", "d") });
    await symlink(join(root, "real"), join(root, "alias"));
    await watching([root], async (_watcher, changes) => {
      await writeFile(join(root, "real", "a", "SKILL.md"), skillMd("local/a", "changed"));
      await until(() => changes() > 0);
    });
  });

  it("watches a root configured through a link", async () => {
    const real = await realpath(await tempDir("watch-real"));
    const linked = join(await tempDir("watch-link"), "skills");
    await symlink(real, linked);
    await watching([linked], async (_watcher, changes) => {
      await mkdir(join(real, "b"));
      await writeFile(join(real, "b", "SKILL.md"), skillMd("local/b", "d"));
      await until(() => changes() > 0);
    });
  });
});
