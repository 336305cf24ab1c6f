import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { listDirectory } from "../../src/files/list-directory.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { tempDir } from "../sandbox/sandbox-fixture.js";
import { startExchangeLoop } from "../support/exchange-loop.js";

// A names-only listing skips each entry's lstat, so it is raced on its own: root/d is exchanged,
// over and over, with root/d-link, a symlink to a folder outside whose entry names differ. No
// listing, recursive or of d itself, may ever name an outside entry. Bounded by calls made.
const calls = 3000;

describe("a names-only listing under a symlink-swap race", () => {
  it("never lists an entry of the folder outside", async () => {
    const base = await tempDir("list-names-race");
    const root = path.join(base, "root");
    const outside = path.join(base, "outside");
    await mkdir(path.join(root, "d", "sub"), { recursive: true });
    await writeFile(path.join(root, "d", "x"), "inside");
    await mkdir(path.join(outside, "outside-folder"), { recursive: true });
    await writeFile(path.join(outside, "outside-marker"), "secret");
    await symlink(outside, path.join(root, "d-link"));
    const sandbox = await createSandbox([{ path: root, readOnly: false }]);
    const loop = await startExchangeLoop(path.join(root, "d"), path.join(root, "d-link"), 120);
    const listed = new Set<string>();
    const errors: unknown[] = [];
    let swaps = 0;
    try {
      for (let i = 0; i < calls; i++) {
        const request = i % 2 === 0 ? { path: "", recursive: true } : { path: "d", recursive: true };
        try {
          const page = await listDirectory(sandbox, { ...request, namesOnly: true });
          for (const entry of page.entries) listed.add(entry.path);
        } catch (err) {
          errors.push(err);
        }
      }
    } finally {
      swaps = await loop.stop();
    }
    assert.ok(swaps > 100, `the loop swapped (${swaps})`);
    assert.deepEqual(
      [...listed].filter((p) => p.includes("outside")),
      [],
    );
    for (const err of errors) assert.ok(isToolhostError(err), String(err));
  });
});
