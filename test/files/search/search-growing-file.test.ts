import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runSearch, searchRoot } from "./search-fixture.js";

/** A child process that appends lines to a file, a few at a time, as a program writing its log does. */
const appendLoop = `
import sys, time
f = open(sys.argv[1], "a")
deadline = time.monotonic() + float(sys.argv[2])
print("ready", flush=True)
while time.monotonic() < deadline:
    f.write("appended line\\n" * 8)
    f.flush()
    time.sleep(0.0002)
`;

describe("searchFiles: a file growing while it is searched", () => {
  it("is searched every time, like a file that does not change (a log being written is not skipped)", async () => {
    const line = "a line of a log file that keeps growing\n";
    const { root, sandbox } = await searchRoot({ "app.log": "NEEDLE at the start\n" });
    // Larger than a match worker's first read buffer (1 MiB), so that reading it takes a larger one.
    appendFileSync(path.join(root, "app.log"), line.repeat(Math.ceil((2 << 20) / line.length)));
    const child = spawn("python3", ["-c", appendLoop, path.join(root, "app.log"), "20"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    let searches = 0;
    let skipped = 0;
    try {
      // 3 s of searches after the first (which also starts the search's workers: on a loaded
      // machine, on the JavaScript path, a fresh-clone CI run spent all 3 s in it).
      let deadline = Number.POSITIVE_INFINITY;
      const lastChance = Date.now() + 30_000;
      while (Date.now() < Math.min(deadline, lastChance) && searches < 2000) {
        const run = await runSearch(sandbox, { pattern: "NEEDLE" });
        assert.ok(run.summary.filesSkipped + run.summary.filesScanned === 1);
        skipped += run.summary.filesSkipped;
        if (searches++ === 0) deadline = Date.now() + 3000;
      }
    } finally {
      child.kill();
      await exited;
    }
    assert.ok(searches >= 20, `only ${searches} searches ran`);
    assert.equal(skipped, 0, `the growing file was skipped in ${skipped} of ${searches} searches`);
  });
});
