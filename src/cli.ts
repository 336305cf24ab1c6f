#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./config/config-error.js";
import { loadConfig } from "./config/load-config.js";
import { packageRoot } from "./config/package-root.js";
import { parseServeFlags, serveUsage } from "./config/serve-flags.js";
import { runSkillsValidate } from "./skills/load/validate-folders.js";
import { runTokenCommand } from "./token-command.js";
import { createLogger } from "./transport/create-logger.js";
import { startServer } from "./app/start-server.js";
import { mcpTokenVariable } from "./app/mcp-token-variable.js";
import { compileEarly, heapRoomBytes, keepHeapRoom } from "./serve-v8-flags.js";

const usage = `Usage:
  toolhost serve [flags]             serve FileTools and SkillCatalog over gRPC (see serve --help)
  toolhost mcp [flags]               serve the same tools over MCP on stdin/stdout (see mcp --help)
  toolhost skills validate DIR...    check skill folders (or folders of them); exit 1 on errors
  toolhost token create --id NAME    print a new bearer token and its tokens-file entry
  toolhost --version`;

/**
 * main runs the toolhost command line and resolves to the process exit code: 0 on success,
 * 1 when `skills validate` finds errors, 2 on a usage or start-up problem.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "serve") {
    return serve(rest);
  }
  if (command === "mcp") {
    return mcp(rest);
  }
  if (command === "skills" && rest[0] === "validate") {
    if (rest.length < 2) {
      process.stderr.write("toolhost: skills validate needs at least one DIR\n");
      return 2;
    }
    return runSkillsValidate(rest.slice(1), process.stdout);
  }
  if (command === "token") {
    return runTokenCommand(rest, process.stdout, process.stderr);
  }
  if (command === "--version" || command === "-v") {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${usage}\n`);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`toolhost: unknown command "${command}"\n${usage}\n`);
  return 2;
}

async function serve(argv: readonly string[]): Promise<number> {
  let server;
  try {
    const flags = parseServeFlags(argv);
    if (flags.help) {
      process.stdout.write(`${serveUsage}\n`);
      return 0;
    }
    const compiledEarly = compileEarly();
    const heapRoom = keepHeapRoom();
    const config = await loadConfig(flags, process.env, process.cwd());
    const logger = createLogger(config.log.level);
    try {
      server = await startServer(config, logger, packageVersion());
    } catch (err) {
      throw startupError(err, config.listen, [config.httpListen, config.mcpListen]);
    }
    if (config.insecure) {
      logger.warn(
        { tls: server.tls, auth: server.authMethods },
        "--insecure: listeners beyond loopback may run without TLS or authentication; only do this behind a proxy that authenticates callers",
      );
    }
    logger.info(
      {
        grpc: server.grpcAddress,
        http: server.httpAddress,
        metrics: server.metricsAddress,
        mcp: server.mcpAddress,
        roots: config.roots.map((r) => r.path),
        read_only_roots: config.roots.filter((r) => r.readOnly || config.readOnly).map((r) => r.path),
        skills: config.skills.map((s) => s.path),
        read_only: config.readOnly,
        tls: server.tls,
        auth: server.authMethods.length > 0 ? server.authMethods : ["none"],
        v8: { compile_early: compiledEarly, heap_room_mib: heapRoom ? heapRoomBytes / (1024 * 1024) : null },
      },
      "listening",
    );
    const running = server;
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal, grace_ms: config.shutdownGraceMs }, "draining");
        void running.close().then(() => {
          logger.info("stopped");
          resolve();
        });
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
    });
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`toolhost: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

const mcpUsage = `Usage: toolhost mcp [flags]

Serves the Tools service's tools over the Model Context Protocol on stdin/stdout, for an agent
that starts toolhost as its subprocess; logs go to stderr. The flags are those of
toolhost serve (see serve --help), without the listeners (--listen, --http-listen,
--metrics-listen, --mcp-listen). With a tokens file, calls carry the bearer token in ${mcpTokenVariable}.`;

/** mcp runs `toolhost mcp` until the client closes stdin (or SIGTERM / SIGINT). */
async function mcp(argv: readonly string[]): Promise<number> {
  try {
    const flags = parseServeFlags(argv);
    if (flags.help) {
      process.stdout.write(`${mcpUsage}\n`);
      return 0;
    }
    for (const [flag, value] of [
      ["--listen", flags.listen],
      ["--http-listen", flags.httpListen],
      ["--metrics-listen", flags.metricsListen],
      ["--mcp-listen", flags.mcpListen],
    ] as const) {
      if (value !== undefined)
        throw new ConfigError(
          `toolhost mcp serves on stdin/stdout and listens on nothing; drop ${flag} (it is a flag of toolhost serve)`,
        );
    }
    // The same V8 flags as serve (docs/adr/0006-v8-flags.md): an agent's calls come one at a time too.
    const compiledEarly = compileEarly();
    const heapRoom = keepHeapRoom();
    const config = await loadConfig(flags, process.env, process.cwd());
    // stdout carries the protocol: every log line goes to stderr.
    const logger = createLogger(config.log.level, process.stderr);
    // Loaded only for this command: `serve` without --mcp-listen never loads the MCP SDK.
    const { startMcp } = await import("./app/start-mcp.js");
    const running = await startMcp(
      config,
      logger,
      process.env,
      { stdin: process.stdin, stdout: process.stdout },
      packageVersion(),
    );
    logger.info(
      {
        transport: "stdio",
        roots: config.roots.map((r) => r.path),
        skills: config.skills.map((s) => s.path),
        read_only: config.readOnly,
        auth: config.auth?.tokensFile === undefined ? "none" : "bearer-token",
        v8: { compile_early: compiledEarly, heap_room_mib: heapRoom ? heapRoomBytes / (1024 * 1024) : null },
      },
      "serving MCP",
    );
    const stop = (signal: string) => {
      logger.info({ signal }, "stopping");
      void running.close();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
    await running.stopped;
    logger.info("stopped");
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`toolhost: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

/** packageVersion is toolhost's version, from its package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

function startupError(err: unknown, listen: string, others: readonly (string | undefined)[]): unknown {
  // A start-up input refused (checkStartUpInputs, the TLS or tokens file) says so itself; its
  // message may name an errno such as EACCES that is not about listening.
  if (err instanceof ConfigError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/EADDRINUSE|address already in use|No address added/i.test(message)) {
    // The HTTP/1.1 listeners (--http-listen, --mcp-listen) fail with EADDRINUSE naming their port.
    const other = others.find((a) => a !== undefined && message.includes(`:${a.split(":").pop() ?? ""}`));
    const which = /EADDRINUSE/.test(message) && other !== undefined ? other : listen;
    return new ConfigError(
      `cannot listen on ${which}: the port is in use; stop the other process or choose another --listen`,
    );
  }
  if (/EADDRNOTAVAIL|ENOTFOUND|EACCES/.test(message)) {
    return new ConfigError(`cannot listen on ${listen}: ${message.split("\n")[0]}; choose another --listen`);
  }
  return err;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`toolhost: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);
