import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { changes, startWatching, watchRoot } from "./watch-fixture.js";

describe("watchFiles: never reports from outside the roots", () => {
  it("sends no event for outside files while a folder is swapped with a symlink to outside in a loop", async () => {
    const outside = await tempDir("outside");
    const { root, sandbox } = await watchRoot({ "sub/inside.txt": "" });
    await symlink(outside, path.join(root, "link"));
    const w = await startWatching(sandbox, { recursive: true });
    const loop = await startExchangeLoop(path.join(root, "sub"), path.join(root, "link"), 20);
    let writes = 0;
    try {
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && writes < 5000) {
        // Synchronous writes, then a turn of the event loop: the watcher, busy with the swaps'
        // events, would otherwise starve the writes themselves.
        writeFileSync(path.join(outside, `outside-${writes % 50}.txt`), String(writes));
        writeFileSync(path.join(root, `inside-${writes % 50}.txt`), String(writes));
        writes++;
        await new Promise((r) => setTimeout(r, 5));
      }
      await mkdir(path.join(outside, "outside-dir"), { recursive: true });
    } finally {
      await loop.stop();
    }
    await w.settle(500);
    await w.stop();
    const reported = changes(w.events);
    assert.ok(
      reported.some((c) => c.includes("inside-")),
      "no inside event: the watch raced nothing",
    );
    assert.deepEqual(
      reported.filter((c) => c.includes("outside")),
      [],
      `outside entries reported over ${writes} writes`,
    );
  });
});
