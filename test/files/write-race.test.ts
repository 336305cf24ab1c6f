import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { deleteFile } from "../../src/files/delete-file.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { writeFile } from "../../src/files/write/write-file.js";
import { escapeFixture } from "./escape-fixtures.js";
import { snapshot } from "./write-fixtures.js";

// A separate process swaps root/d between a directory and a symlink to `outside` as fast as it
// can, while this one writes, uploads and deletes under d/. Whatever interleaving happens, the
// sandbox must refuse or act inside the root: nothing may appear, change or vanish outside.

const names = Array.from({ length: 8 }, (_, i) => `f${i}.txt`);

/** swapper is the attacker: a tight loop of renames and symlinks for `ms` milliseconds. */
const swapper = `
const fs = require("node:fs");
const [root, outside, ms] = process.argv.slice(1);
const d = root + "/d";
const end = Date.now() + Number(ms);
for (let i = 0; Date.now() < end; i++) {
  const parked = root + "/parked-" + i;
  try { fs.renameSync(d, parked); } catch { continue; }
  try { fs.symlinkSync(outside, d); fs.unlinkSync(d); } catch {}
  try { fs.renameSync(parked, d); } catch {}
}
`;

async function* chunks(value: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(value);
}

describe("a path component swapped for a link to outside during writes and deletes", () => {
  it("never lets a write, upload or delete reach outside the roots", async () => {
    const f = await escapeFixture(names);
    const before = await snapshot(f.outside);
    const child = spawn(process.execPath, ["-e", swapper, f.root, f.outside, "2000"], { stdio: "ignore" });
    const exited = once(child, "exit");
    let running = true;
    void exited.then(() => (running = false));
    const ignore = (): undefined => undefined; // refusals are expected; only the disk is judged
    // Each turn lets the event loop run: a refusal can be answered without a single thread-pool
    // round trip (local folders), and six workers refusing back to back in microtasks alone would
    // never let the swapper's 'exit' through (a fresh-clone CI run hung here, d left as a link).
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; running; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        const name = names[(i + w) % names.length]!;
        if (w % 3 === 0)
          await writeFile(f.sandbox, { path: `d/${name}`, content: { text: `w${w} ${i}` } }).catch(ignore);
        else if (w % 3 === 1) await uploadFile(f.sandbox, { path: `d/${name}` }, chunks(`u${w} ${i}`)).catch(ignore);
        else await deleteFile(f.sandbox, { path: `d/${name}` }).catch(ignore);
      }
    };
    await Promise.all([0, 1, 2, 3, 4, 5].map(worker));
    await exited;
    assert.deepEqual(await snapshot(f.outside), before, "nothing outside the roots changed");
    const temps = (await readdir(f.root, { recursive: true })).filter((p) => isTempFileName(path.basename(p)));
    assert.deepEqual(temps, [], "no temporary file is left in the root");
  });
});
