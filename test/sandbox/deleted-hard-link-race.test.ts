import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { ReadAttempts } from "./read-attempts.js";
import { tempDir } from "./sandbox-fixture.js";

// Review: root/a is a hard link of outside/secret.txt, which the sandbox refuses (HARD_LINK)
// while both names exist. Removing root/a between the open of the path and the check of the
// descriptor (another process, or the client's own DeleteFile) leaves the descriptor's inode
// with one link (the outside name) and /proc/self/fd/N reading "<root>/a (deleted)". That text
// lies "in the root" by name and nlink is no longer 0 nor above 1, so the descriptor passed as
// an in-root, single-link file and the outside file's content was read.
const raceMs = 3000;
const maxAttempts = 200_000;

const linkLoop = `
import os, sys, select
src, dst = sys.argv[1], sys.argv[2]
print("ready", flush=True)
n = 0
while True:
    try: os.link(src, dst)
    except FileExistsError: pass
    try: os.unlink(dst)
    except FileNotFoundError: pass
    n += 1
    if n % 256 == 0 and select.select([sys.stdin], [], [], 0)[0]: break
print(n, flush=True)
`;

describe("a hard link removed while it is being opened", () => {
  for (const open of ["openForRead", "openReader"] as const) {
    it(`never lets a read (${open}) see the outside file's content through the removed in-root name`, async () => {
      const base = await tempDir("deleted-hard-link");
      const root = path.join(base, "root");
      const outside = path.join(base, "outside");
      await mkdir(root);
      await mkdir(outside);
      const secret = path.join(outside, "secret.txt");
      await writeFile(secret, "outside secret");
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      const child = spawn("python3", ["-c", linkLoop, secret, path.join(root, "a")], { stdio: ["pipe", "pipe", "inherit"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
      const exited = once(child, "exit");
      while (!out.includes("ready")) await new Promise((r) => setTimeout(r, 10));
      const attempts = new ReadAttempts();
      const until = Date.now() + raceMs;
      try {
        for (let i = 0; i < maxAttempts && Date.now() < until; i++) {
          await attempts.attempt(sandbox, open, "a");
        }
      } finally {
        child.stdin.end();
        await exited;
      }
      attempts.assertNoLeak();
    });
  }
});
