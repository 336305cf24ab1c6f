import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { tempDir } from "./sandbox-fixture.js";

// Review (native2): checkReopened's barrier opens dirname(<the /proc path read before it>) BY PATH
// and, when that open fails, skips the barrier AND the second look at the name (folder-barrier.ts
// returns false; open-regular-file.ts `&& waitForFolderChanges(...)`). The in-root hard link's
// folder can be renamed without its own lock (a same-parent rename locks only the parent), so a
// second process renaming root/d <-> root/e makes the barrier miss about half the time, and the
// last round's HIGH (an unlink of root/d/a lowers the count before it removes the name) is back.
const raceMs = 8000;
const maxAttempts = 400_000;

const linkLoop = `
import os, sys, select
src, dsts = sys.argv[1], sys.argv[2:]
print("ready", flush=True)
n = 0
while True:
    for dst in dsts:
        try: os.link(src, dst)
        except OSError: pass
        try: os.unlink(dst)
        except OSError: pass
    n += 1
    if n % 256 == 0 and select.select([sys.stdin], [], [], 0)[0]: break
`;

const renameLoop = `
import os, sys, select, time
a, b = sys.argv[1], sys.argv[2]
print("ready", flush=True)
n = 0
while True:
    try: os.rename(a, b)
    except OSError: pass
    time.sleep(0.0003)
    try: os.rename(b, a)
    except OSError: pass
    time.sleep(0.0003)
    n += 1
    if n % 256 == 0 and select.select([sys.stdin], [], [], 0)[0]: break
`;

async function started(script: string, args: string[]): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const child = spawn("python3", ["-c", script, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  const exited = once(child, "exit");
  while (!out.includes("ready")) await new Promise((r) => setTimeout(r, 10));
  return { child, exited };
}

describe("the sandbox's hard-link barrier while the link's folder is renamed", () => {
  for (const open of ["openForRead", "openReader"] as const) {
    // KNOWN OPEN (review of 2026-12-01, HIGH, older than the native addon and on the JavaScript
    // path too): with the link's folder renamed d <-> e meanwhile, the read leaked the outside
    // file 1-4 times in 6 of 8 runs of the review's batch (0 in 5 runs alone). Kept as `todo`
    // so that it runs and reports without failing the suite until the check that lets it through
    // is found (suspects: liveEntryNamed's " (deleted)" rule, the two readlinks across a rename).
    // Since checkReopened refuses a read whose folder is gone from its path at the barrier (the
    // main way through) it has not leaked here, but the review saw one more leak with that fix.
    it(`never lets ${open} read the outside file through root/d/a being unlinked`, { todo: "hard link + folder rename race: open (see above)" }, async () => {
      const base = await tempDir("barrier-rename");
      const root = path.join(base, "root");
      const outside = path.join(base, "outside");
      await mkdir(path.join(root, "d"), { recursive: true });
      await mkdir(outside);
      const secret = path.join(outside, "secret.txt");
      await writeFile(secret, "outside secret");
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      const links = await started(linkLoop, [secret, path.join(root, "d", "a"), path.join(root, "e", "a")]);
      const renames = await started(renameLoop, [path.join(root, "d"), path.join(root, "e")]);
      const leaks: string[] = [];
      const reasons = new Map<string, number>();
      const until = Date.now() + raceMs;
      try {
        for (let i = 0; i < maxAttempts && Date.now() < until; i++) {
          for (const name of ["d/a", "e/a"]) {
            try {
              const opened = await sandbox[open](name);
              try {
                const buffer = Buffer.alloc(64);
                const { bytesRead } = await opened.handle.read(buffer, 0, 64, 0);
                leaks.push(`${name}: ${buffer.subarray(0, bytesRead).toString()} (nlink ${opened.stats.nlink})`);
              } finally {
                await opened.handle.close();
              }
            } catch (err) {
              assert.ok(isToolhostError(err), String(err));
              reasons.set(err.reason, (reasons.get(err.reason) ?? 0) + 1);
            }
          }
        }
      } finally {
        for (const p of [links, renames]) p.child.stdin!.end();
        await Promise.all([links.exited, renames.exited]);
      }
      assert.deepEqual(leaks, [], `reads of the outside file (refusals: ${JSON.stringify([...reasons])})`);
    });
  }
});
