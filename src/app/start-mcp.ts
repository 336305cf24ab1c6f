import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "pino";
import type { Config } from "../config/config.js";
import { ConfigError } from "../config/config-error.js";
import { startHashWorker } from "../files/read/off-thread-hash.js";
import { createMcpServer, type McpCallEnded } from "../mcp/create-mcp-server.js";
import { createCallSinks } from "../transport/observability/call-sinks.js";
import { createCallLogger } from "../transport/call-logger.js";
import { mcpCallRecord } from "../transport/mcp-call-record.js";
import { buildServices } from "./build-services.js";
import { drainWithin } from "./drain-history.js";
import { mcpTokenVariable } from "./mcp-token-variable.js";

/**
 * envelopeBytes is what an MCP message may hold beyond its largest gRPC request: the JSON-RPC
 * envelope and the tool's name around the arguments.
 */
const envelopeBytes = 64 * 1024;

/** McpStdio is the stdio pair the MCP server speaks on. */
export interface McpStdio {
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/** RunningMcp is a started `toolhost mcp`: it ends when the client closes stdin, or on close(). */
export interface RunningMcp {
  /** Resolves once the server has stopped (stdin ended, or close() was called). */
  readonly stopped: Promise<void>;
  /** Stops serving and lets go of the history, the auth file watch and the skill catalog. */
  close(): Promise<void>;
}

/**
 * startMcp serves the guarded Tools service (buildServices, as `serve` builds it) over MCP on
 * stdin/stdout. Over stdio the caller is the process's user: with a tokens file, the bearer
 * token in TOOLHOST_TOKEN (refused at start-up when unset, rather than every call after); else
 * anonymous, as `serve` without auth. Each request's log line goes to the logger, which must not
 * write to stdout.
 */
export async function startMcp(
  config: Config,
  logger: Logger,
  env: NodeJS.ProcessEnv,
  stdio: McpStdio,
  version: string,
): Promise<RunningMcp> {
  const authorization = authorizationOf(config, env);
  const { tools, security, skillCatalog, guardedSkillCatalog, history } = await buildServices(config, logger);
  // Over stdio the process serves one MCP session: its skill activations are one session's.
  const stdioSession = `mcp-stdio-${randomUUID()}`;
  const { onCallEnd } = createCallSinks(createCallLogger(logger), undefined);
  const shutdown = new AbortController();
  startHashWorker();
  const server = createMcpServer({
    tools,
    caller: { authorization },
    version,
    contentBytes: config.limits.toolContentBytes,
    shutdownSignal: shutdown.signal,
    onCallEnd: (ended: McpCallEnded) => onCallEnd(mcpCallRecord(ended, "stdio")),
    skills: { catalog: guardedSkillCatalog, source: skillCatalog, activationSession: () => stdioSession },
  });
  const transport = new StdioServerTransport(stdio.stdin, stdio.stdout, {
    maxBufferSize: config.limits.maxReceiveMessageBytes + envelopeBytes,
  });
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      shutdown.abort(new Error("toolhost mcp is stopping"));
      await server.close();
      // The history lines answered before syncing are synced, within the grace period: a hung
      // history folder must not hold the exit.
      if (history !== undefined) await drainWithin(history, config.shutdownGraceMs);
      security.close();
      await skillCatalog.close();
      resolveStopped();
    })());
  // The client ends the session by closing the server's stdin (the MCP stdio transport's
  // shutdown); the transport ends it when a message is over the bound of its read buffer.
  stdio.stdin.once("end", () => void close());
  server.onclose = () => void close();
  server.onerror = (err) => logger.warn({ err: err.message }, "MCP session error");
  await server.connect(transport);
  return { stopped, close };
}

/** authorizationOf is the header every call of this process carries, per the config's auth. */
function authorizationOf(config: Config, env: NodeJS.ProcessEnv): string | undefined {
  if (config.auth?.tokensFile === undefined) {
    if (config.tls?.clientCa !== undefined) {
      throw new ConfigError(
        "toolhost mcp cannot authenticate with a client certificate over stdio; configure a tokens file and set TOOLHOST_TOKEN, or drop --tls-client-ca",
      );
    }
    return undefined;
  }
  const token = env[mcpTokenVariable];
  if (token === undefined || token === "") {
    throw new ConfigError(
      `a tokens file is configured, so toolhost mcp needs a bearer token: set ${mcpTokenVariable} to one (see toolhost token create)`,
    );
  }
  return `Bearer ${token}`;
}
