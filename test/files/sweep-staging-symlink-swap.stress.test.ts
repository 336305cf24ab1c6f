import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { crashedTempName, recordedStagingFolder, scratchDir, snapshot } from "./write-fixtures.js";

// Review of branch `content` (issue 27 #10, stress tier): the start-up sweep now removes staging
// folders recursively. While it runs, another process exchanges (renameat2 RENAME_EXCHANGE) a
// component with a symlink to an outside folder holding a staging-named folder and files of its
// own: the staging folder itself, a folder inside it, and the folder that holds it. Bounded by
// work: `iterations` sweeps per case. Nothing outside may change. (Held: this passes.)

const iterations = 30;

/** exchanging swaps a and b until stdin closes; a name that is gone (the sweep removed it) ends the loop quietly. */
async function exchanging(a: string, b: string): Promise<{ stop(): Promise<void> }> {
  const code = `
import ctypes, os, select, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
print("ready", flush=True)
while True:
    for _ in range(64):
        if libc.renameat2(-100, a, -100, b, 2) != 0: sys.exit(0)
    r, _, _ = select.select([sys.stdin], [], [], 0)
    if r and sys.stdin.buffer.read1(1) == b"": sys.exit(0)
`;
  const child = spawn("python3", ["-c", code, a, b], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = once(child, "exit");
  await once(child.stdout, "data"); // "ready": the loop runs
  return {
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

async function filled(dir: string, text: string, recorded = false): Promise<void> {
  if (recorded) await recordedStagingFolder(dir);
  await mkdir(path.join(dir, "a", "b"), { recursive: true });
  await writeFile(path.join(dir, "a", "f.txt"), text);
  await writeFile(path.join(dir, "a", "b", "g.txt"), text);
}

type Case = (root: string, outside: string) => Promise<[string, string]>;

const cases: Record<string, Case> = {
  "the staging folder itself": async (root, outside) => {
    const name = crashedTempName();
    await filled(path.join(root, "p", name), "staged\n", true);
    await symlink(outside, path.join(root, "p", "lnk"));
    return [path.join(root, "p", name), path.join(root, "p", "lnk")];
  },
  "a folder inside it": async (root, outside) => {
    const staging = path.join(root, "p", crashedTempName());
    await filled(staging, "staged\n", true);
    await symlink(path.join(outside, "a"), path.join(staging, "lnk"));
    return [path.join(staging, "a"), path.join(staging, "lnk")];
  },
  "the folder holding it": async (root, outside) => {
    const name = crashedTempName();
    await filled(path.join(root, "p", name), "staged\n", true);
    await filled(path.join(outside, name), "OUTSIDE\n"); // a staging-named folder outside: never the sweep's
    await symlink(outside, path.join(root, "lnk"));
    return [path.join(root, "p"), path.join(root, "lnk")];
  },
};

describe("the sweep of recorded staging folders under a symlink swap (stress)", () => {
  for (const [label, make] of Object.entries(cases)) {
    it(`never removes anything outside while ${label} is swapped (${iterations} sweeps)`, {
      timeout: 300_000,
    }, async () => {
      for (let i = 0; i < iterations; i++) {
        const base = await scratchDir("review-sweep-swap-");
        const root = path.join(base, "root");
        const outside = path.join(base, "outside");
        await mkdir(root);
        await filled(outside, "OUTSIDE\n");
        const [a, b] = await make(root, outside);
        const before = await snapshot(outside);
        const loop = await exchanging(a, b);
        try {
          await removeStaleTempFiles([{ path: root }]);
        } finally {
          await loop.stop();
        }
        assert.deepEqual(await snapshot(outside), before, `iteration ${i}: something outside changed`);
        await rm(base, { recursive: true, force: true });
      }
    });
  }
});
