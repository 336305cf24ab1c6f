import { resolve } from "node:path";
import { ConfigError } from "./config-error.js";
import { readConfigFile, type ConfigLayer } from "./config-file.js";
import { withDerivedLimits, type Config, type Limits, type LogLevel } from "./config.js";
import { bundledSkillsRoot } from "./package-root.js";
import type { ServeFlags } from "./serve-flags.js";
import { isLoopbackHost } from "./is-loopback-host.js";
import { resolveHistory } from "./history-config.js";
import { stagingDirIn } from "./state-dir.js";
import { checkLimits, maxTimerMs } from "./limit-bounds.js";
import { listenerIsGuarded, securityConfig } from "./security-config.js";

const logLevels: readonly LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/**
 * loadConfig builds the one frozen Config from defaults, the YAML file, the environment and the
 * flags, in that order of precedence, and checks its values whole: every problem is a ConfigError
 * whose one-line message says what to fix. What its paths lead to (kind, place, writability) is
 * checked by checkStartUpInputs, which startServer runs on every Config before anything else.
 */
export async function loadConfig(flags: ServeFlags, env: NodeJS.ProcessEnv, cwd: string): Promise<Config> {
  const configPath = flags.config ?? env["TOOLHOST_CONFIG"];
  const file: ConfigLayer = configPath === undefined ? {} : await readConfigFile(resolve(cwd, configPath));
  const fromEnv: ConfigLayer = {
    listen: env["TOOLHOST_LISTEN"] || undefined,
    logLevel: (env["TOOLHOST_LOG_LEVEL"] || undefined) as LogLevel | undefined,
    allowHardLinks: envBoolean(env["TOOLHOST_ALLOW_HARD_LINKS"], "TOOLHOST_ALLOW_HARD_LINKS"),
  };
  const fromFlags: ConfigLayer = {
    listen: flags.listen,
    httpListen: flags.httpListen,
    metricsListen: flags.metricsListen,
    mcpListen: flags.mcpListen,
    roots: flags.roots.length > 0 ? flags.roots.map((p) => ({ path: resolve(cwd, p), readOnly: false })) : undefined,
    skills: flags.skills.length > 0 ? flags.skills.map((s) => skillFlag(s, cwd)) : undefined,
    readOnly: flags.readOnly,
    insecure: flags.insecure,
    allowHardLinks: flags.allowHardLinks,
    logLevel: flags.logLevel as LogLevel | undefined,
    limits: {
      ...(flags.maxTextBytes !== undefined && { maxTextBytes: positive(flags.maxTextBytes, "--max-text-bytes") }),
      ...(flags.chunkSize !== undefined && { chunkSize: positive(flags.chunkSize, "--chunk-size") }),
    },
  };
  const pick = <K extends keyof ConfigLayer>(key: K): ConfigLayer[K] => fromFlags[key] ?? fromEnv[key] ?? file[key];

  const limits: Limits = withDerivedLimits({ ...file.limits, ...fromFlags.limits });
  checkLimits(limits);
  const logLevel = pick("logLevel") ?? "info";
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError(`log level "${logLevel}" is not one of ${logLevels.join(", ")}`);
  }
  const listen = pick("listen") ?? "127.0.0.1:50051";
  const httpListen = pick("httpListen");
  const metricsListen = pick("metricsListen");
  const mcpListen = pick("mcpListen");
  const insecure = pick("insecure") ?? false;
  const { tls, auth } = securityConfig(file, flags, cwd);
  for (const address of [listen, httpListen, metricsListen, mcpListen].filter((a): a is string => a !== undefined)) {
    checkListen(address, insecure || listenerIsGuarded(tls, auth));
  }
  const roots = pick("roots") ?? [{ path: cwd, readOnly: false }];
  if (roots.length === 0) {
    throw new ConfigError(
      "roots is an empty list; name at least one directory (or leave roots out to serve the current directory)",
    );
  }
  const shutdownGraceMs = pick("shutdownGraceMs") ?? 10_000;
  if (shutdownGraceMs > maxTimerMs) {
    throw new ConfigError(
      `shutdown_grace_ms (${shutdownGraceMs}) is over ${maxTimerMs}, the longest timer Node can set; lower it`,
    );
  }
  const skills = pick("skills") ?? [{ path: bundledSkillsRoot(), namespace: "examples" }];
  checkGrpcHost(env["TOOLHOST_GRPC_HOST"]);
  return Object.freeze({
    listen,
    httpListen,
    metricsListen,
    mcpListen,
    roots: Object.freeze(roots.map((r) => Object.freeze({ ...r }))),
    skills: Object.freeze(skills.map((s) => Object.freeze({ ...s }))),
    readOnly: pick("readOnly") ?? false,
    insecure,
    limits: Object.freeze(limits),
    log: Object.freeze({ level: logLevel }),
    history: resolveHistory(
      {
        ...file.history,
        ...(flags.historyDir !== undefined && { dir: resolve(cwd, flags.historyDir) }),
        ...(flags.noHistory === true && { enabled: false }),
      },
      env,
    ),
    stagingDir: resolve(cwd, stagingDirIn(env)),
    sandbox: Object.freeze({ allowHardLinks: pick("allowHardLinks") ?? false }),
    shutdownGraceMs,
    tls,
    auth,
  });
}

function skillFlag(value: string, cwd: string): { path: string; namespace: string | undefined } {
  const match = /^([A-Za-z0-9_-]+)=(.+)$/.exec(value);
  return match
    ? { namespace: match[1], path: resolve(cwd, match[2]!) }
    : { namespace: undefined, path: resolve(cwd, value) };
}

function envBoolean(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new ConfigError(`${name} must be true, false, 1 or 0, not "${value}"`);
}

function positive(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new ConfigError(`${flag} must be a positive whole number, not "${value}"`);
  }
  return n;
}

/**
 * checkListen refuses a malformed address, and a non-loopback one unless it is guarded (TLS and
 * an authentication method) or insecure is set: a file server reachable from the network without
 * both hands the workspace to anyone, and a token sent in plaintext is a token given away.
 */
function checkListen(address: string, allowed: boolean): void {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    throw new ConfigError(`listen address "${address}" is not HOST:PORT (for example 127.0.0.1:50051, or [::1]:50051)`);
  }
  const host = match[1]!.replace(/^\[(.*)\]$/, "$1");
  if (!isLoopbackHost(host) && !allowed) {
    throw new ConfigError(
      `refusing to listen on ${address} without TLS and authentication: toolhost would hand its roots to anyone who can reach it; add --tls-cert/--tls-key and --tokens-file (or tls.client_ca), listen on 127.0.0.1, or pass --insecure if a proxy in front authenticates callers`,
    );
  }
}

/**
 * checkGrpcHost reads $TOOLHOST_GRPC_HOST, which chose the gRPC listener's host while there were
 * two: node:http2 is now the only one (docs/adr/0004-server-host.md), so unset, empty and
 * node-http2 are accepted and anything else (grpc-js included) stops start-up rather than be
 * ignored.
 */
function checkGrpcHost(value: string | undefined): void {
  if (value === undefined || value === "" || value === "node-http2") return;
  throw new ConfigError(
    `TOOLHOST_GRPC_HOST is "${value}"; the gRPC listener is hosted on node:http2 only now (docs/adr/0004-server-host.md): unset it`,
  );
}
