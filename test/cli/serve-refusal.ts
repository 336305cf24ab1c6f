// serveRefusal runs `toolhost serve`'s start-up in this process: the flags, the config, then the
// server's start (the TLS and tokens files, the roots), as cli.ts does. Each refusal is a
// ConfigError that cli.ts prints as one line and exits 2 with; the spawned cases in
// config-refusals and serve-security prove that mapping once, these prove each message without
// a child process per case (a child takes a second or more on a busy machine).
import { spawn } from "node:child_process";
import { once } from "node:events";
import pino from "pino";
import { startServer } from "../../src/app/start-server.js";
import { ConfigError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { builtCli } from "../support/built-cli.js";

/** serveRefusal resolves to the message of the ConfigError that stops `serve ARGS` from starting; it fails if the server starts. */
export async function serveRefusal(args: readonly string[], cwd: string): Promise<string> {
  const withListen = args.includes("--listen") ? args : [...args, "--listen", "127.0.0.1:0"];
  try {
    const config = await loadConfig(parseServeFlags(withListen), {}, cwd);
    const server = await startServer(config, pino({ level: "silent" }));
    await server.close();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error(`serve ${args.join(" ")} started`);
}

/** runCli runs the toolhost command line in a child process (the compiled CLI) and collects its output. */
export async function runCli(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [builtCli, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}
