import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { builtCli } from "./built-cli.js";

/** SpawnedServer is a toolhost CLI running as a child process. */
export interface SpawnedServer {
  /** host:port of the gRPC listener. */
  readonly address: string;
  /** host:port of the HTTP listener, when --http-listen was given. */
  readonly httpAddress: string | undefined;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Every line the server wrote to stdout so far (pino JSON). */
  readonly lines: string[];
  /** Sends SIGTERM and waits for the exit; resolves to the exit code. */
  stop(): Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * spawnServer runs `toolhost serve ARGS` in a child process (the compiled CLI, built if stale)
 * and resolves once it logs "listening". `--listen 127.0.0.1:0` is added unless ARGS has --listen.
 */
export async function spawnServer(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<SpawnedServer> {
  const fullArgs = args.includes("--listen") ? [...args] : [...args, "--listen", "127.0.0.1:0"];
  const child = spawn(process.execPath, [builtCli, "serve", ...fullArgs], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const listening = new Promise<{ grpc: string; http?: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      try {
        const record = JSON.parse(line) as { msg?: string; grpc?: string; http?: string };
        if (record.msg === "listening" && record.grpc !== undefined) {
          resolve({ grpc: record.grpc, http: record.http });
        }
      } catch {
        // Not JSON: kept in lines for the test to look at.
      }
    });
    void exited.then(([code]) => reject(new Error(`toolhost exited with ${code} before listening: ${stderr.trim()}`)));
  });
  const { grpc, http } = await listening;
  return {
    address: grpc,
    httpAddress: http,
    pid: child.pid!,
    child,
    lines,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
      }
      const [code] = await exited;
      return code;
    },
    kill: (signal) => child.kill(signal),
  };
}
