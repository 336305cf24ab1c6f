import { resolveStateDir } from "./state-dir.js";
import { join, resolve } from "node:path";
import type { HistoryConfig } from "./config.js";
import { ConfigError } from "./config-error.js";

/** HistoryLayer is what one config source says about the change history. */
export interface HistoryLayer {
  enabled?: boolean;
  dir?: string;
  maxBytes?: number;
  maxAgeHours?: number;
  maxFileBytes?: number;
}

/** historyDefaults bound the store when the config says nothing: 1 GiB, 7 days, 16 MiB a file. */
export const historyDefaults = {
  maxBytes: 1024 ** 3,
  maxAgeHours: 24 * 7,
  maxFileBytes: 16 * 1024 * 1024,
  maxEntriesPerFile: 1000,
};

/** historyKeys are the keys of the config file's `history:` mapping. */
export const historyKeys: readonly string[] = ["enabled", "dir", "max_bytes", "max_age_hours", "max_file_bytes"];
const keys = historyKeys;

/** historyLayerFromYaml checks the `history:` mapping of a config file. */
export function historyLayerFromYaml(raw: unknown, baseDir: string, file: string): HistoryLayer {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`history in ${file} must be a mapping of keys to values`);
  const map = raw as Record<string, unknown>;
  const unknown = Object.keys(map).find((k) => !keys.includes(k));
  if (unknown !== undefined)
    throw new ConfigError(
      `unknown key "history.${unknown}" in ${file}; known keys: ${keys.map((k) => `history.${k}`).join(", ")}`,
    );
  const layer: HistoryLayer = {};
  if (map["enabled"] !== undefined) {
    if (typeof map["enabled"] !== "boolean") throw new ConfigError(`history.enabled in ${file} must be true or false`);
    layer.enabled = map["enabled"];
  }
  if (map["dir"] !== undefined) {
    if (typeof map["dir"] !== "string" || map["dir"] === "")
      throw new ConfigError(`history.dir in ${file} must be a non-empty string`);
    layer.dir = resolve(baseDir, map["dir"]);
  }
  const positive = (key: string): number | undefined => {
    const v = map[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0)
      throw new ConfigError(`history.${key} in ${file} must be a positive whole number`);
    return v;
  };
  const maxBytes = positive("max_bytes");
  const maxAgeHours = positive("max_age_hours");
  const maxFileBytes = positive("max_file_bytes");
  if (maxBytes !== undefined) layer.maxBytes = maxBytes;
  if (maxAgeHours !== undefined) layer.maxAgeHours = maxAgeHours;
  if (maxFileBytes !== undefined) layer.maxFileBytes = maxFileBytes;
  return layer;
}

/**
 * resolveHistory turns the merged history settings into the HistoryConfig the server uses, or
 * undefined when it is off. The default folder is $TOOLHOST_STATE_DIR, else
 * $XDG_STATE_HOME/toolhost, else ~/.local/state/toolhost, with history/ inside. Where the folder
 * lies (apart from every root, in both directions), its kind and its writability are checked by
 * checkStartUpInputs (start-up-inputs.ts).
 */
export function resolveHistory(layer: HistoryLayer, env: NodeJS.ProcessEnv): HistoryConfig | undefined {
  if (layer.enabled === false) return undefined;
  const dir = layer.dir ?? join(resolveStateDir(env), "history");
  const maxAgeHours = layer.maxAgeHours ?? historyDefaults.maxAgeHours;
  if (maxAgeHours > 24 * 365 * 100)
    throw new ConfigError(`history.max_age_hours ${maxAgeHours} is more than a century; choose a smaller age`);
  const maxBytes = layer.maxBytes ?? historyDefaults.maxBytes;
  // A content larger than the store itself would be pruned as soon as it is stored: an undo or
  // restore that relies on it could not have it. A max_file_bytes given larger than max_bytes is
  // refused; the default one is never larger than max_bytes. (The store keeps a file only up to
  // 90% of max_bytes, what a prune leaves: FileHistory.keeps.)
  const maxFileBytes = layer.maxFileBytes ?? Math.min(historyDefaults.maxFileBytes, maxBytes);
  if (maxFileBytes > maxBytes) {
    throw new ConfigError(
      `history.max_file_bytes (${maxFileBytes}) is larger than history.max_bytes (${maxBytes}), so a file that size could not stay in the history; raise max_bytes or lower max_file_bytes`,
    );
  }
  return Object.freeze({
    dir,
    maxBytes,
    maxAgeMs: maxAgeHours * 3_600_000,
    maxFileBytes,
    maxEntriesPerFile: historyDefaults.maxEntriesPerFile,
  });
}
