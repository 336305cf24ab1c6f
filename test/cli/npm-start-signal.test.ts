import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { waitFor } from "../support/wait-for.js";

// `npm start` execs the server (package.json: "start": "exec node dist/cli.js serve"), so the
// SIGTERM an orchestrator or a terminal sends npm reaches the server, which drains and exits;
// before, the shell npm ran kept the server as an orphan when it died.

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** serverPids are the processes running dist/cli.js with this test's root in their arguments. */
function serverPids(root: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const args = cmdline.split("\0");
    if (args.some((a) => a.endsWith("dist/cli.js")) && args.includes(root)) pids.push(Number(name));
  }
  return pids;
}

describe("npm start", { timeout: 300_000 }, () => {
  it("passes SIGTERM to the server, which exits: no orphan left", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolhost-npm-start-"));
    const npm = spawn("npm", ["start", "--silent", "--", "--root", root, "--listen", "127.0.0.1:0"], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    npm.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: npm.stdout }).on("line", (line) => {
          if (line.includes('"msg":"listening"')) resolve();
        });
        npm.once("exit", (code) => reject(new Error(`npm start exited with ${code} before listening: ${stderr}`)));
      });
      const running = serverPids(root);
      assert.equal(running.length, 1, `one server process expected, found ${running.join(", ")}`);
      const exited = once(npm, "exit");
      npm.kill("SIGTERM");
      await exited;
      // The server drains (shutdown_grace_ms) and exits; waitFor's deadline is only a hang guard.
      await waitFor("the server to exit after npm start (it outlived npm start)", () => serverPids(root).length === 0);
    } finally {
      for (const pid of serverPids(root)) process.kill(pid, "SIGKILL");
      if (npm.exitCode === null && npm.signalCode === null) npm.kill("SIGKILL");
    }
  });
});
