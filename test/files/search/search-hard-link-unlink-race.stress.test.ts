import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { runSearch, searchRoot, writeTree } from "./search-fixture.js";

/** A child process that hard-links `target` at `link` and removes the link again, in a loop. */
const linkLoop = `
import os, sys, time
target, link = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + float(sys.argv[3])
n = 0
print("ready", flush=True)
while time.monotonic() < deadline:
    try:
        os.link(target, link)
        os.unlink(link)
        n += 1
    except OSError:
        pass
print(n, flush=True)
`;

/** searches is how many searches race the loop: the bound of the test is this work, not a time. */
const searches = 500;

describe("searchFiles: a hard link to an outside file removed while it is searched", () => {
  it("never returns the outside file's content under the in-root name", async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "secret.txt": "OUTSIDE_TOKEN\n" });
    const inside: Record<string, string> = {};
    for (let i = 0; i < 30; i++) inside[`sub/f${i}.txt`] = "INSIDE_TOKEN\n";
    const { root, sandbox } = await searchRoot(inside);
    await runSearch(sandbox, { pattern: "warm-up" }); // the workers exist before the race starts
    const child = spawn(
      "python3",
      ["-c", linkLoop, path.join(outside, "secret.txt"), path.join(root, "sub", "x.txt"), "3600"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    let leaked = 0;
    let inside_ = 0;
    try {
      // The loop's own time limit (3600 s) is only a guard against a test that never stops it.
      for (let i = 0; i < searches && leaked === 0; i++) {
        const run = await runSearch(sandbox, { pattern: "_TOKEN" });
        for (const m of run.matches) m.text.startsWith("OUTSIDE") ? leaked++ : inside_++;
      }
    } finally {
      child.kill();
      await exited;
    }
    assert.ok(inside_ > 0, "nothing was searched");
    assert.equal(leaked, 0, `the outside file's content was returned ${leaked} time(s) within ${searches} searches`);
  });
});
