import { dirname, resolve } from "node:path";
import { parse } from "yaml";
import { ConfigError } from "./config-error.js";
import type { Limits, LogLevel } from "./config.js";
import { historyKeys, historyLayerFromYaml, type HistoryLayer } from "./history-config.js";
import { readInputFile } from "./read-input-file.js";

/** maxConfigFileBytes bounds the config file read at start-up; a real one is a few KiB. */
const maxConfigFileBytes = 1024 * 1024;

/** ConfigLayer is what one source (file, env, flags) says; unset members say nothing. */
export interface ConfigLayer {
  listen?: string;
  httpListen?: string;
  metricsListen?: string;
  mcpListen?: string;
  roots?: { path: string; readOnly: boolean }[];
  skills?: { path: string; namespace: string | undefined }[];
  readOnly?: boolean;
  insecure?: boolean;
  limits?: Partial<Record<keyof Limits, number>>;
  logLevel?: LogLevel;
  shutdownGraceMs?: number;
  history?: HistoryLayer;
  allowHardLinks?: boolean;
  tls?: { cert?: string; key?: string; clientCa?: string; requireClientCert?: boolean };
  tokensFile?: string;
}

/** limitKeys maps the YAML names of limits to Limits members. */
export const limitKeys: Readonly<Record<string, keyof Limits>> = {
  max_text_bytes: "maxTextBytes",
  chunk_size: "chunkSize",
  min_chunk_size: "minChunkSize",
  max_chunk_size: "maxChunkSize",
  max_receive_message_bytes: "maxReceiveMessageBytes",
  max_concurrent_streams: "maxConcurrentStreams",
  max_session_memory_mib: "maxSessionMemoryMiB",
  max_edit_bytes: "maxEditBytes",
  max_path_depth: "maxPathDepth",
  tool_content_bytes: "toolContentBytes",
  max_tool_content_bytes: "maxToolContentBytes",
  tool_collect_ms: "toolCollectMs",
  max_edits_per_call: "maxEditsPerCall",
  max_edit_diff_bytes: "maxEditDiffBytes",
  edit_diff_timeout_ms: "editDiffTimeoutMs",
  max_watch_pending_events: "maxWatchPendingEvents",
  skill_reload_max_wait_ms: "skillReloadMaxWaitMs",
  max_skill_file_bytes: "maxSkillFileBytes",
  max_activated_bytes: "maxActivatedBytes",
  max_send_buffer_bytes_per_connection: "maxSendBufferBytesPerConnection",
  max_send_buffer_bytes: "maxSendBufferBytes",
  max_receive_buffer_bytes_per_connection: "maxReceiveBufferBytesPerConnection",
  max_receive_buffer_bytes: "maxReceiveBufferBytes",
  max_receive_buffer_bytes_per_caller: "maxReceiveBufferBytesPerCaller",
  receive_message_timeout_ms: "receiveMessageTimeoutMs",
  idle_connection_timeout_ms: "idleConnectionTimeoutMs",
  max_tree_entries: "maxTreeEntries",
  max_read_files: "maxReadFiles",
  max_read_files_bytes: "maxReadFilesBytes",
  max_search_file_bytes: "maxSearchFileBytes",
  max_search_matches: "maxSearchMatches",
  search_time_budget_ms: "searchTimeBudgetMs",
  max_watches: "maxWatches",
  max_watches_per_caller: "maxWatchesPerCaller",
  max_watched_folders_per_stream: "maxWatchedFoldersPerStream",
  max_watched_folders_per_caller: "maxWatchedFoldersPerCaller",
  max_watched_folders: "maxWatchedFolders",
  max_watched_entries_per_stream: "maxWatchedEntriesPerStream",
  max_watched_entries_per_caller: "maxWatchedEntriesPerCaller",
  max_watched_entries: "maxWatchedEntries",
  watch_queue_events: "watchQueueEvents",
};

const topKeys = [
  "listen",
  "http_listen",
  "metrics_listen",
  "mcp_listen",
  "roots",
  "skills",
  "read_only",
  "insecure",
  "limits",
  "log",
  "shutdown_grace_ms",
  "sandbox",
  "history",
  "tls",
  "auth",
];

/** The keys of each mapping section of the config file (history's are in history-config.ts). */
const sectionKeys = {
  roots: ["path", "read_only"],
  skills: ["path", "namespace"],
  sandbox: ["allow_hard_links"],
  tls: ["cert", "key", "client_ca", "require_client_cert"],
  auth: ["tokens_file"],
  log: ["level"],
} as const;

/**
 * configFileKeys lists every key the config file takes, dotted ("tls.cert", "roots[].path"), so a
 * test can prove it sets each of them (test/config/start-up-inputs.test.ts).
 */
export const configFileKeys: readonly string[] = Object.freeze(
  topKeys.flatMap((top) => {
    if (top === "roots" || top === "skills") return sectionKeys[top].map((k) => `${top}[].${k}`);
    if (top === "limits") return Object.keys(limitKeys).map((k) => `limits.${k}`);
    if (top === "history") return historyKeys.map((k) => `history.${k}`);
    if (top in sectionKeys) return sectionKeys[top as keyof typeof sectionKeys].map((k) => `${top}.${k}`);
    return [top];
  }),
);

/**
 * readConfigFile reads and checks a YAML config file: a regular file (a FIFO or device is refused
 * unread, see read-input-file.ts), read whole. Relative paths in it resolve against the file's
 * own folder, so a config works from any working directory.
 */
export async function readConfigFile(file: string): Promise<ConfigLayer> {
  let text: string;
  try {
    text = (await readInputFile(file, { what: "config file", maxBytes: maxConfigFileBytes })).content.toString("utf8");
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}; check the --config path (TOOLHOST_CONFIG)`);
  }
  let raw: unknown;
  try {
    raw = parse(text, { maxAliasCount: 100 });
  } catch (err) {
    const first = (err as Error).message.split("\n")[0];
    throw new ConfigError(`config file ${file} is not valid YAML: ${first}`);
  }
  return configLayerFromYaml(raw ?? {}, dirname(resolve(file)), file);
}

/** configLayerFromYaml checks the parsed YAML of a config file: every key known, every value typed. */
export function configLayerFromYaml(raw: unknown, baseDir: string, file: string): ConfigLayer {
  const at = (key: string) => `${key} in ${file}`;
  const top = mapping(raw, `the top level of ${file}`);
  unknownKeys(top, topKeys, file, "");
  const layer: ConfigLayer = {};
  if (top["listen"] !== undefined) layer.listen = str(top["listen"], at("listen"));
  if (top["http_listen"] !== undefined) layer.httpListen = str(top["http_listen"], at("http_listen"));
  if (top["metrics_listen"] !== undefined) layer.metricsListen = str(top["metrics_listen"], at("metrics_listen"));
  if (top["mcp_listen"] !== undefined) layer.mcpListen = str(top["mcp_listen"], at("mcp_listen"));
  if (top["read_only"] !== undefined) layer.readOnly = bool(top["read_only"], at("read_only"));
  if (top["insecure"] !== undefined) layer.insecure = bool(top["insecure"], at("insecure"));
  if (top["shutdown_grace_ms"] !== undefined)
    layer.shutdownGraceMs = int(top["shutdown_grace_ms"], at("shutdown_grace_ms"));
  if (top["roots"] !== undefined) {
    layer.roots = list(top["roots"], at("roots")).map((item, i) => {
      const entry = typeof item === "string" ? { path: item } : mapping(item, at(`roots[${i}]`));
      unknownKeys(entry, sectionKeys.roots, file, `roots[${i}].`);
      const readOnly = entry["read_only"] === undefined ? false : bool(entry["read_only"], at(`roots[${i}].read_only`));
      return { path: resolve(baseDir, str(entry["path"], at(`roots[${i}].path`))), readOnly };
    });
  }
  if (top["skills"] !== undefined) {
    layer.skills = list(top["skills"], at("skills")).map((item, i) => {
      const entry = typeof item === "string" ? { path: item } : mapping(item, at(`skills[${i}]`));
      unknownKeys(entry, sectionKeys.skills, file, `skills[${i}].`);
      const namespace =
        entry["namespace"] === undefined ? undefined : str(entry["namespace"], at(`skills[${i}].namespace`));
      return { path: resolve(baseDir, str(entry["path"], at(`skills[${i}].path`))), namespace };
    });
  }
  if (top["limits"] !== undefined) {
    const limits = mapping(top["limits"], at("limits"));
    unknownKeys(limits, Object.keys(limitKeys), file, "limits.");
    layer.limits = {};
    for (const [key, value] of Object.entries(limits)) {
      layer.limits[limitKeys[key]!] = int(value, at(`limits.${key}`));
    }
  }
  if (top["history"] !== undefined) layer.history = historyLayerFromYaml(top["history"], baseDir, file);
  if (top["sandbox"] !== undefined) {
    const sandbox = mapping(top["sandbox"], at("sandbox"));
    unknownKeys(sandbox, sectionKeys.sandbox, file, "sandbox.");
    if (sandbox["allow_hard_links"] !== undefined)
      layer.allowHardLinks = bool(sandbox["allow_hard_links"], at("sandbox.allow_hard_links"));
  }
  if (top["tls"] !== undefined) {
    const tls = mapping(top["tls"], at("tls"));
    unknownKeys(tls, sectionKeys.tls, file, "tls.");
    layer.tls = {};
    if (tls["cert"] !== undefined) layer.tls.cert = resolve(baseDir, str(tls["cert"], at("tls.cert")));
    if (tls["key"] !== undefined) layer.tls.key = resolve(baseDir, str(tls["key"], at("tls.key")));
    if (tls["client_ca"] !== undefined)
      layer.tls.clientCa = resolve(baseDir, str(tls["client_ca"], at("tls.client_ca")));
    if (tls["require_client_cert"] !== undefined)
      layer.tls.requireClientCert = bool(tls["require_client_cert"], at("tls.require_client_cert"));
  }
  if (top["auth"] !== undefined) {
    const auth = mapping(top["auth"], at("auth"));
    unknownKeys(auth, sectionKeys.auth, file, "auth.");
    if (auth["tokens_file"] !== undefined)
      layer.tokensFile = resolve(baseDir, str(auth["tokens_file"], at("auth.tokens_file")));
  }
  if (top["log"] !== undefined) {
    const log = mapping(top["log"], at("log"));
    unknownKeys(log, sectionKeys.log, file, "log.");
    if (log["level"] !== undefined) layer.logLevel = str(log["level"], at("log.level")) as LogLevel;
  }
  return layer;
}

function mapping(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`${where} must be a mapping of keys to values`);
  }
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) {
    throw new ConfigError(`${where} must be a list`);
  }
  return value;
}

function str(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "") {
    throw new ConfigError(`${where} must be a non-empty string`);
  }
  return value;
}

function bool(value: unknown, where: string): boolean {
  if (typeof value !== "boolean") {
    throw new ConfigError(`${where} must be true or false`);
  }
  return value;
}

function int(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(`${where} must be a positive whole number`);
  }
  return value;
}

function unknownKeys(map: Record<string, unknown>, known: readonly string[], file: string, prefix: string): void {
  const unknown = Object.keys(map).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new ConfigError(
      `unknown key "${prefix}${unknown}" in ${file}; known keys: ${known.map((k) => prefix + k).join(", ")}`,
    );
  }
}
