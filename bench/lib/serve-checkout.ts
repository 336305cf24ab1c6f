import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, connect } from "node:net";
import path from "node:path";

/** CheckoutServer is `toolhost serve` of one checkout, running as a child process. */
export interface CheckoutServer {
  readonly name: string;
  readonly address: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * serveCheckout starts `node --import tsx src/cli.ts serve ARGS` in `checkout` (so another
 * checkout, such as a worktree of main, can be measured beside this one) on a free loopback port
 * at log level warn, and resolves once the port accepts connections (at most 60 s).
 */
export async function serveCheckout(name: string, checkout: string, args: readonly string[]): Promise<CheckoutServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(checkout, "src/cli.ts"),
      "serve",
      "--listen",
      `127.0.0.1:${port}`,
      "--log-level",
      "warn",
      ...args,
    ],
    { cwd: checkout, stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = once(child, "exit");
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (child.exitCode !== null || tries > 600) throw new Error(`${name} (${checkout}) did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    address: `127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** quantile is the q-quantile (0..1) of sorted numbers, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}
