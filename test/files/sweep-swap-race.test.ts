import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdir, readdir, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { scratchDir } from "./write-fixtures.js";

/** oldTempName is a temporary file name of the earliest form, which any sweep removes once old. */
function oldTempName(): string {
  return tempFilePrefix + randomBytes(16).toString("hex");
}

async function writeOld(file: string): Promise<void> {
  await writeFile(file, "x");
  const hourAgo = new Date(Date.now() - 3_600_000);
  await utimes(file, hourAgo, hourAgo);
}

describe("start-up sweep under a symlink swap", () => {
  it("removes no outside file while a directory is exchanged with a link to outside, and still cleans inside", async () => {
    const outside = await scratchDir("sweep-outside-");
    for (let i = 0; i < 1000; i++) await writeOld(path.join(outside, oldTempName()));
    const root = await scratchDir("sweep-root-");
    await mkdir(path.join(root, "d"));
    await mkdir(path.join(root, "stable"));
    await symlink(outside, path.join(root, "l"));
    const loop = await startExchangeLoop(path.join(root, "d"), path.join(root, "l"), 20);
    let sweeps = 0;
    let cleaned = 0;
    const until = Date.now() + 3_000;
    try {
      while (Date.now() < until && sweeps < 2_000) {
        const inside = path.join(root, "stable", oldTempName());
        await writeOld(inside);
        const report = await removeStaleTempFiles([{ path: root }]);
        sweeps++;
        if (report.removed.includes(inside)) cleaned++;
      }
    } finally {
      const swaps = await loop.stop();
      assert.ok(swaps > 1000, `the loop swapped only ${swaps} times`);
    }
    assert.equal((await readdir(outside)).length, 1000, `outside files removed over ${sweeps} sweeps`);
    assert.equal(cleaned, sweeps, "every sweep removed the stale file in the stable directory");
  });
});
