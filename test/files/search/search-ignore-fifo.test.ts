import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { runSearch, searchRoot } from "./search-fixture.js";

describe("searchFiles: a FIFO named .gitignore in a folder above the search path", () => {
  it("is never opened (a writer blocked on it stays blocked) and the search still runs", async () => {
    const { root, sandbox } = await searchRoot({ "sub/a.txt": "TOKEN\n" });
    const fifo = path.join(root, ".gitignore");
    execFileSync("mkfifo", [fifo]);
    // The writer blocks in open(2) until some reader opens the FIFO: its output means one did.
    const writer = spawn("sh", ["-c", 'exec 3>"$1"; echo opened', "sh", fifo], { stdio: ["ignore", "pipe", "ignore"] });
    let opened = false;
    writer.stdout.on("data", () => (opened = true));
    try {
      await sleep(300);
      const run = await runSearch(sandbox, { path: "sub", pattern: "TOKEN" });
      assert.equal(run.matches.length, 1);
      await sleep(300);
      assert.equal(opened, false, "the search opened the FIFO above it as an ignore file");
    } finally {
      writer.kill("SIGKILL");
    }
  });
});
