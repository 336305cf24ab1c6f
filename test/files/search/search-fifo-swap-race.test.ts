import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { runSearch, searchRoot } from "./search-fixture.js";

describe("searchFiles: a FIFO swapped in for a listed file is never opened", () => {
  it("leaves a writer blocked on the FIFO blocked while the FIFO and a regular file swap names in a loop", async () => {
    const { root, sandbox } = await searchRoot({ "a.txt": "TOKEN\n" });
    const fifo = path.join(root, "p.fifo");
    execFileSync("mkfifo", [fifo]);
    // The writer blocks in open(2) until some reader opens the FIFO: its exit means one did.
    const writer = spawn("sh", ["-c", 'exec 3>"$1"; echo opened', "sh", fifo], { stdio: ["ignore", "pipe", "ignore"] });
    let opened = false;
    writer.stdout.on("data", () => (opened = true));
    await new Promise((r) => setTimeout(r, 300)); // the writer is in open(2) on the FIFO inode now
    const loop = await startExchangeLoop(path.join(root, "a.txt"), fifo, 20);
    let searches = 0;
    let searched = 0;
    try {
      // 3 s of searching, longer (up to 20 s) while none has found the regular file yet: on a
      // loaded machine (the JavaScript path, a CI run beside other work) the first seconds may
      // all land on the FIFO's turns, and the test would have raced nothing.
      const deadline = Date.now() + 3000;
      const lastChance = Date.now() + 20_000;
      while ((Date.now() < deadline || (searched === 0 && Date.now() < lastChance)) && searches < 30_000 && !opened) {
        const run = await runSearch(sandbox, { pattern: "TOKEN" });
        searched += run.matches.length;
        searches++;
      }
    } finally {
      await loop.stop();
      writer.kill("SIGKILL");
    }
    assert.ok(searched > 0, "the regular file was never searched: the test raced nothing");
    assert.equal(opened, false, `a search opened the FIFO (its blocked writer went on) within ${searches} searches`);
  });
});
