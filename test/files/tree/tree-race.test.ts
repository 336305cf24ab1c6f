import assert from "node:assert/strict";
import { mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { copyFile } from "../../../src/files/tree/copy-file.js";
import { makeDirectory } from "../../../src/files/tree/make-directory.js";
import { moveFile } from "../../../src/files/tree/move-file.js";
import { removeDirectory } from "../../../src/files/tree/remove-directory.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import { startExchangeLoop, type ExchangeLoop } from "../../support/exchange-loop.js";
import { scratchDir, snapshot } from "../write-fixtures.js";

// A child process exchanges a real directory inside the root with a symlink to a directory
// outside every root (renameat2 RENAME_EXCHANGE, so both names always exist) while the tree
// operations run under it. Whatever interleaving happens, they may fail, but nothing outside may
// be removed, moved, changed or copied in.

const names = Array.from({ length: 8 }, (_, i) => `f${i}.txt`);
const ignore = (): undefined => undefined; // refusals are expected under the race; the disk is judged

interface RaceFixture {
  readonly root: string;
  readonly outside: string;
  readonly sandbox: Awaited<ReturnType<typeof createSandbox>>;
}

async function raceFixture(): Promise<RaceFixture> {
  const base = await scratchDir("tree-race-");
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(outside, { recursive: true });
  for (const name of names) await writeFile(path.join(outside, name), `outside ${name}`);
  // The same layout as the directory swapped for a link to here, so that anything acting by name
  // through the link finds something to remove.
  for (const sub of ["sub", "deeper"]) {
    await mkdir(path.join(outside, sub));
    for (const name of names) await writeFile(path.join(outside, sub, name), `outside ${sub} ${name}`);
  }
  await mkdir(root);
  const sandbox = await createSandbox([{ path: root, readOnly: false }]);
  return { root: sandbox.roots[0]!.path, outside, sandbox };
}

/** stopTolerant ends the loop; it may have ended itself when the removal took one side away. */
async function stopTolerant(loop: ExchangeLoop): Promise<void> {
  await loop.stop().catch((err: Error) => assert.match(err.message, /No such file or directory/));
}

/** outsideContentInside lists the files under the root (links not followed) holding outside content. */
async function outsideContentInside(root: string): Promise<string[]> {
  const entries = Object.entries(await snapshot(root));
  return entries
    .filter(
      ([, v]) =>
        v.startsWith("file ") &&
        Buffer.from(v.split(" ")[2] ?? "", "base64")
          .toString()
          .startsWith("outside"),
    )
    .map(([k]) => k);
}

describe("tree operations raced by a directory exchanged with a link to outside", () => {
  it("RemoveDirectory (recursive) never removes anything outside", async () => {
    const f = await raceFixture();
    const before = await snapshot(f.outside);
    const deadline = Date.now() + 8000;
    let rounds = 0;
    for (; rounds < 12 && Date.now() < deadline; rounds++) {
      const d = path.join(f.root, "d");
      await mkdir(path.join(d, "s", "deeper"), { recursive: true });
      for (const name of names) {
        await writeFile(path.join(d, "s", name), "inside");
        await writeFile(path.join(d, "s", "deeper", name), "inside");
      }
      await symlink(f.outside, path.join(f.root, "parked")).catch(ignore);
      const loop = await startExchangeLoop(path.join(d, "s"), path.join(f.root, "parked"), 5);
      await removeDirectory(f.sandbox, { path: "d", recursive: true, serverMaxEntries: 1000 }).catch(ignore);
      await removeDirectory(f.sandbox, { path: "parked", recursive: true, serverMaxEntries: 1000 }).catch(ignore);
      await stopTolerant(loop);
      assert.deepEqual(await snapshot(f.outside), before, `nothing outside changed (round ${rounds})`);
      // Clear the root for the next round, by the same operation (a link is removed as a link).
      for (const name of await readdir(f.root)) {
        await removeDirectory(f.sandbox, { path: name, recursive: true, serverMaxEntries: 1000 }).catch(ignore);
        await rm(path.join(f.root, name), { force: true });
      }
    }
    assert.ok(rounds >= 3, "the race ran");
    assert.deepEqual(await snapshot(f.outside), before);
  });

  it("MoveFile, CopyFile and MakeDirectory never move, write, create or read anything outside", async () => {
    const f = await raceFixture();
    const d = path.join(f.root, "d");
    await mkdir(d);
    await mkdir(path.join(f.root, "e"));
    for (const name of names) await writeFile(path.join(d, name), `inside ${name}`);
    await symlink(f.outside, path.join(f.root, "parked"));
    const before = await snapshot(f.outside);
    const loop = await startExchangeLoop(d, path.join(f.root, "parked"), 10);
    const end = Date.now() + 2500;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; Date.now() < end && i < 5000; i++) {
        const name = names[(i + w) % names.length]!;
        if (w === 0) {
          await moveFile(f.sandbox, { from: `d/${name}`, to: `e/${name}` }).catch(ignore);
          await moveFile(f.sandbox, { from: `e/${name}`, to: `d/${name}` }).catch(ignore);
        } else if (w === 1) {
          await copyFile(f.sandbox, {
            from: `d/${name}`,
            to: `e/copy-${name}`,
            overwrite: true,
            maxEntries: 100,
          }).catch(ignore);
        } else if (w === 2) {
          await copyFile(f.sandbox, { from: `e/copy-${name}`, to: `d/new-${w}-${i}`, maxEntries: 100 }).catch(ignore);
        } else if (w === 4) {
          await makeDirectory(f.sandbox, { path: `d/made-${i}` }).catch(ignore);
          await makeDirectory(f.sandbox, { path: `d/made-${i}/a/b`, parents: true }).catch(ignore);
        } else {
          await copyFile(f.sandbox, { from: "d/sub", to: `e/tree-${i}`, recursive: true, maxEntries: 100 }).catch(
            ignore,
          );
          await moveFile(f.sandbox, { from: `d/${name}`, to: `d/moved-${name}`, overwrite: true }).catch(ignore);
          await moveFile(f.sandbox, { from: `d/moved-${name}`, to: `d/${name}` }).catch(ignore);
        }
      }
    };
    await Promise.all([0, 1, 2, 3, 4].map(worker));
    const swaps = await loop.stop();
    assert.ok(swaps > 0, "the race ran");
    assert.deepEqual(await snapshot(f.outside), before, "nothing outside was moved, changed or added");
    assert.deepEqual(await outsideContentInside(f.root), [], "nothing outside was read into the root");
  });
});
