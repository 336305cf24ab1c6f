import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./exchange-loop.py", import.meta.url));

/** ExchangeLoop is a running exchange-loop.py: stop() ends it and resolves to its swap count. */
export interface ExchangeLoop {
  stop(): Promise<number>;
}

/**
 * startExchangeLoop swaps the entries at `a` and `b` with renameat2(RENAME_EXCHANGE) in a tight
 * loop (in a child process, so the server under test is raced from outside its event loop) until
 * stop() or `seconds`. Resolves once the loop is running. Each name always exists: the race a
 * symlink-swap attacker runs, without the gaps of a rename loop.
 */
export async function startExchangeLoop(a: string, b: string, seconds = 30): Promise<ExchangeLoop> {
  const child = spawn("python3", [script, a, b, String(seconds)], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    const check = () => (out.includes("ready\n") ? resolve() : undefined);
    child.stdout.on("data", check);
    void exited.then(() => reject(new Error(`exchange-loop exited early: ${err}`)));
  });
  return {
    async stop() {
      child.stdin.end();
      const [code] = (await exited) as [number | null];
      if (code !== 0) throw new Error(`exchange-loop failed (${code}): ${err}`);
      return Number(out.split("\n").filter(Boolean).pop());
    },
  };
}
