import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runSearch, searchRoot } from "./search-fixture.js";

/** A child process that appends lines to a file, a few at a time, as a program writing its log does, until killed. */
const appendLoop = `
import sys, time
f = open(sys.argv[1], "a")
print("ready", flush=True)
while True:
    f.write("appended line\\n" * 8)
    f.flush()
    time.sleep(0.0002)
`;

/** searches is how many searches run while the file grows: the bound of the test is this work, not a time. */
const searches = 200;

describe("searchFiles: a file growing while it is searched", () => {
  it(`is searched every time over ${searches} searches, like a file that does not change (a log being written is not skipped)`, async () => {
    const line = "a line of a log file that keeps growing\n";
    const { root, sandbox } = await searchRoot({ "app.log": "NEEDLE at the start\n" });
    // Larger than a match worker's first read buffer (1 MiB), so that reading it takes a larger one.
    appendFileSync(path.join(root, "app.log"), line.repeat(Math.ceil((2 << 20) / line.length)));
    const child = spawn("python3", ["-c", appendLoop, path.join(root, "app.log")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    let skipped = 0;
    try {
      for (let i = 0; i < searches; i++) {
        const run = await runSearch(sandbox, { pattern: "NEEDLE" });
        assert.equal(run.summary.filesSkipped + run.summary.filesScanned, 1);
        skipped += run.summary.filesSkipped;
      }
    } finally {
      child.kill();
      await exited;
    }
    assert.equal(skipped, 0, `the growing file was skipped in ${skipped} of ${searches} searches`);
  });
});
