import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile as fsWriteFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { sha256Hex } from "../../src/files/content-hash.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { escapeFixture } from "./escape-fixtures.js";
import { snapshot } from "./write-fixtures.js";

// UploadFile hashes the file it will replace while the bytes arrive (previous-content-hash.ts).
// A separate process swaps root/d between a directory and a symlink to `outside`, where a file of
// the same name and size waits: no upload may report the outside file's hash as previous_sha256
// (that would tell a client what a file outside the roots holds), nor change anything outside.

const MiB = 1024 * 1024;

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

describe("a path component swapped for a link to outside during uploads over a large file", () => {
  it("never reports the outside file's hash as previous_sha256 and changes nothing outside", async () => {
    const f = await escapeFixture();
    const inside = Buffer.alloc(2 * MiB, "i");
    const outsideContent = Buffer.alloc(2 * MiB, "o");
    await fsWriteFile(path.join(f.root, "d", "big.bin"), inside);
    await fsWriteFile(path.join(f.outside, "big.bin"), outsideContent);
    await sleep(150); // Both settled, so the early hash runs at once.
    const before = await snapshot(f.outside);
    const insideHashes = new Set([sha256Hex(inside)]);
    const reported: string[] = [];
    const child = spawn(process.execPath, ["-e", swapper, f.root, f.outside, "2000"], { stdio: "ignore" });
    const exited = once(child, "exit");
    let running = true;
    void exited.then(() => (running = false));
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; running && i < 200; i++) {
        const data = [Buffer.alloc(MiB, `${w}.${i}`), Buffer.alloc(MiB, `${i}.${w}`)];
        insideHashes.add(sha256Hex(Buffer.concat(data)));
        async function* slowly(): AsyncGenerator<Uint8Array> {
          yield data[0]!;
          await sleep(150); // Time for the early hash to read the old file.
          yield data[1]!;
        }
        const result = await uploadFile(f.sandbox, { path: "d/big.bin" }, slowly()).catch(() => undefined);
        if (result !== undefined && !result.created) reported.push(result.previousSha256);
      }
    };
    await Promise.all([0, 1].map(worker));
    await exited;
    assert.ok(reported.length > 0, "some uploads replaced the file");
    assert.ok(!reported.includes(sha256Hex(outsideContent)), "the outside file's hash was never reported");
    for (const sha of reported)
      assert.ok(insideHashes.has(sha), `previous_sha256 ${sha} is of content that was inside`);
    assert.deepEqual(await snapshot(f.outside), before, "nothing outside the roots changed");
  });
});
