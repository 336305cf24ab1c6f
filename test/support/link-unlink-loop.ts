import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

/** PythonLoop is a running attacker loop: stop() ends it (closing its stdin) and waits for its exit. */
export interface PythonLoop {
  stop(): Promise<void>;
}

/**
 * linkUnlinkLoop is a Python program (argv: source, then targets) that hard-links `source` to
 * each target and removes that link again, in a loop, until its stdin closes: an in-root hard link
 * to an outside file that keeps being made and unlinked. Prints "ready" once running.
 */
export const linkUnlinkLoop = `
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

/** startPythonLoop runs `script` with `args` in a child process and resolves once it printed "ready". */
export async function startPythonLoop(script: string, args: string[]): Promise<PythonLoop> {
  const child: ChildProcess = spawn("python3", ["-c", script, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  const exited = once(child, "exit");
  for (let i = 0; i < 1000 && !out.includes("ready"); i++) await new Promise((r) => setTimeout(r, 10));
  return {
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}
