import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError } from "../../../src/config/config-error.js";
import { defaultLimits } from "../../../src/config/config.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { parseServeFlags } from "../../../src/config/serve-flags.js";

const keys = {
  max_watches_per_caller: "maxWatchesPerCaller",
  max_watched_folders_per_caller: "maxWatchedFoldersPerCaller",
  max_watched_folders: "maxWatchedFolders",
  max_watched_entries_per_stream: "maxWatchedEntriesPerStream",
  max_watched_entries_per_caller: "maxWatchedEntriesPerCaller",
  max_watched_entries: "maxWatchedEntries",
} as const;

describe("WatchFiles' per-caller and server-wide bounds are config keys", () => {
  it("reads each from limits, with its default when unset, and refuses one that is not a positive whole number", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolhost-watch-config-"));
    const file = path.join(dir, "config.yaml");
    const yaml = Object.keys(keys)
      .map((key, i) => `  ${key}: ${i + 2}`)
      .join("\n");
    await writeFile(file, `roots: ["."]\nlimits:\n${yaml}\n`);
    const config = await loadConfig(parseServeFlags(["--config", file]), {}, dir);
    assert.deepEqual(
      Object.values(keys).map((k) => config.limits[k]),
      [2, 3, 4, 5, 6, 7],
    );
    const plain = await loadConfig(parseServeFlags(["--root", dir]), {}, dir);
    assert.deepEqual(
      Object.values(keys).map((k) => plain.limits[k]),
      Object.values(keys).map((k) => defaultLimits[k]),
    );
    assert.deepEqual(
      Object.values(keys).map((k) => defaultLimits[k]),
      [8, 20_000, 50_000, 100_000, 200_000, 500_000],
    );
    await writeFile(file, `roots: ["."]\nlimits:\n  max_watched_folders_per_caller: 0\n`);
    await assert.rejects(
      loadConfig(parseServeFlags(["--config", file]), {}, dir),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message === `limits.max_watched_folders_per_caller in ${file} must be a positive whole number`,
    );
  });
});
