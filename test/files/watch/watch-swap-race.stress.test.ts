// Stress tier: WatchFiles set up again and again while a folder of the tree is exchanged with a
// symlink to outside the roots (renameat2 RENAME_EXCHANGE in another process), and written
// through its name meanwhile: every write lands either in the inside folder or outside, and no
// event may name anything that landed outside. Bounded by work: 30 set-ups, 60 writes each.
import assert from "node:assert/strict";
import { lstatSync, writeFileSync } from "node:fs";
import { mkdir, readdir, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { changes, startWatching, watchRoot } from "./watch-fixture.js";

const setUps = 30;
const writesPerSetUp = 60;

describe("watchFiles set-up and changes under a folder/symlink exchange race (stress)", () => {
  it("never reports an entry that lies outside the roots, in snapshots or changes", async () => {
    const outside = await realpath(await tempDir("outside"));
    await mkdir(path.join(outside, "outside-dir"));
    for (let i = 0; i < 20; i++) await writeFile(path.join(outside, `outside-${i}.txt`), "secret");
    await writeFile(path.join(outside, "outside-dir", "outside-deep.txt"), "secret");
    const { root, sandbox } = await watchRoot({ "sub/inside.txt": "", "sub/deep/inside-deep.txt": "" });
    const inode = lstatSync(path.join(root, "sub")).ino;
    await symlink(outside, path.join(root, "link"));
    const loop = await startExchangeLoop(path.join(root, "sub"), path.join(root, "link"), 600);
    const reported: string[] = [];
    let written = 0;
    let swaps = 0;
    try {
      for (let n = 0; n < setUps; n++) {
        const w = await startWatching(sandbox, { recursive: true, initialSnapshot: true });
        try {
          for (let i = 0; i < writesPerSetUp; i++) {
            // Through the raced name: lands in the inside folder or in the outside one.
            writeFileSync(path.join(root, "sub", `w-${written++}.txt`), "");
            if (i % 10 === 0) await new Promise((r) => setImmediate(r));
          }
          writeFileSync(path.join(root, `marker-${n}.txt`), "");
          await w.waitFor((e) => changes(e).includes(`created marker-${n}.txt`), 30_000);
        } finally {
          await w.stop();
        }
        reported.push(...changes(w.events));
      }
    } finally {
      swaps = await loop.stop();
    }
    // Which folder is the inside one now: the one with the original inode, at either name.
    const insideDir = [path.join(root, "sub"), path.join(root, "link")].find((p) => lstatSync(p).ino === inode)!;
    const inside = new Set(await readdir(insideDir));
    const outsideNames = new Set(await readdir(outside));
    const writesSeen = reported.filter((c) => /w-\d+\.txt/.test(c)).length;
    if (process.env["TOOLHOST_TEST_LOG"] === "1")
      console.log(
        `${swaps} swaps, ${written} writes, ${inside.size} landed inside, ${writesSeen} write events, ${reported.length} events`,
      );
    assert.ok(swaps > setUps && writesSeen > 0, `${swaps} swaps, ${writesSeen} write events: the race raced nothing`);
    assert.deepEqual(
      reported.filter((c) => c.includes("outside")),
      [],
      "an outside name was reported",
    );
    for (const c of reported) {
      for (const name of c.match(/w-\d+\.txt/g) ?? []) {
        assert.ok(inside.has(name) && !outsideNames.has(name), `${c}: ${name} lies outside`);
      }
    }
  });
});
