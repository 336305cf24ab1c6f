import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../src/config/config-error.js";
import { defaultLimits } from "../../src/config/config.js";
import { limitKeys } from "../../src/config/config-file.js";
import { loadConfig } from "../../src/config/load-config.js";
import { checkStartUpInputs } from "../../src/config/start-up-inputs.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";

let dir: string;

async function withYaml(yaml: string): Promise<string[]> {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  return ["--config", file];
}

/** checked is loadConfig followed by the start-up input check startServer runs first. */
async function checked(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const config = await loadConfig(parseServeFlags(argv), env, dir);
  await checkStartUpInputs(config);
  return config;
}

async function refused(argv: string[], expected: RegExp): Promise<void> {
  await assert.rejects(checked(argv), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `not a ConfigError: ${String(err)}`);
    assert.match(err.message, expected);
    assert.doesNotMatch(err.message, /\n/, "a config error is one line");
    return true;
  });
}

describe("config values the runtime cannot take", () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-config-bounds-"));
    await mkdir(join(dir, "work"));
    await symlink(join(dir, "work"), join(dir, "link"));
  });

  it("refuses a stream limit beyond 2^32-1", async () => {
    await refused(
      await withYaml("limits:\n  max_concurrent_streams: 4294967296\n"),
      /^limits\.max_concurrent_streams \(4294967296\) is over 4294967295, the HTTP\/2 SETTINGS range/,
    );
  });

  it("refuses timers beyond 2^31-1 ms", async () => {
    for (const key of ["receive_message_timeout_ms", "idle_connection_timeout_ms"]) {
      await refused(
        await withYaml(`limits:\n  ${key}: 2147483648\n`),
        new RegExp(`^limits\\.${key} \\(2147483648\\) is over 2147483647, the longest timer Node can set`),
      );
    }
    await refused(
      await withYaml("shutdown_grace_ms: 2147483648\n"),
      /^shutdown_grace_ms \(2147483648\) is over 2147483647/,
    );
  });

  it("refuses negative, zero, fractional and non-numeric values of every limit", async () => {
    for (const key of Object.keys(limitKeys)) {
      for (const bad of ["-1", "0", "1.5", '"10MiB"', "1e400"]) {
        await refused(
          await withYaml(`limits:\n  ${key}: ${bad}\n`),
          new RegExp(`^limits\\.${key} in .* must be a positive whole number$`),
        );
      }
    }
  });

  it("refuses sizes V8 or the gRPC framing cannot hold", async () => {
    await refused(
      await withYaml("limits:\n  max_text_bytes: 1073741824\n"),
      /^limits\.max_text_bytes \(1073741824\) is over 536870888, the longest string V8 can hold/,
    );
    await refused(
      await withYaml("limits:\n  max_receive_message_bytes: 4294967296\n"),
      /^limits\.max_receive_message_bytes \(4294967296\) is over 4294967290, the largest gRPC message/,
    );
    await refused(
      await withYaml("limits:\n  max_chunk_size: 2147483648\n  chunk_size: 2147483648\n"),
      /^limits\.chunk_size \(2147483648\) is over 1073741824/,
    );
  });

  it("refuses chunk sizes outside the clamp, and inconsistent budgets", async () => {
    await refused(
      await withYaml("limits:\n  min_chunk_size: 8192\n  max_chunk_size: 4096\n  chunk_size: 4096\n"),
      /^limits\.min_chunk_size \(8192\) is above limits\.max_chunk_size \(4096\)/,
    );
    await refused(
      await withYaml("limits:\n  chunk_size: 4194304\n"),
      /^limits\.chunk_size \(4194304\) must lie between min_chunk_size \(4096\) and max_chunk_size \(3145728\)$/,
    );
    await refused(
      await withYaml("limits:\n  max_send_buffer_bytes_per_connection: 536870912\n"),
      /^limits\.max_send_buffer_bytes_per_connection \(536870912\) is above limits\.max_send_buffer_bytes/,
    );
  });

  it("refuses a caller's receive share above the whole receive budget, and derives it from the budget when only that is set", async () => {
    await refused(
      await withYaml("limits:\n  max_receive_buffer_bytes_per_caller: 536870913\n"),
      /^limits\.max_receive_buffer_bytes_per_caller \(536870913\) is above limits\.max_receive_buffer_bytes \(536870912\), the bound for all callers together; lower it$/,
    );
    assert.equal(defaultLimits.maxReceiveBufferBytesPerCaller, defaultLimits.maxReceiveBufferBytes / 4);
    const lowered = await loadConfig(
      parseServeFlags(
        await withYaml(
          "limits:\n  max_receive_buffer_bytes: 4194304\n  max_receive_buffer_bytes_per_connection: 1048576\n",
        ),
      ),
      {},
      dir,
    );
    assert.equal(lowered.limits.maxReceiveBufferBytesPerCaller, 1048576, "a quarter of max_receive_buffer_bytes");
    const both = await loadConfig(
      parseServeFlags(
        await withYaml(
          "limits:\n  max_receive_buffer_bytes: 4194304\n  max_receive_buffer_bytes_per_connection: 1048576\n  max_receive_buffer_bytes_per_caller: 4194304\n",
        ),
      ),
      {},
      dir,
    );
    assert.equal(both.limits.maxReceiveBufferBytesPerCaller, 4194304, "a share the config names is kept");
  });

  it("accepts every default, and every limit at its bound", async () => {
    const config = await loadConfig(
      parseServeFlags(
        await withYaml("limits:\n  max_concurrent_streams: 4294967295\n  receive_message_timeout_ms: 2147483647\n"),
      ),
      {},
      dir,
    );
    assert.equal(config.limits.maxConcurrentStreams, 4294967295);
    assert.equal(config.limits.maxTextBytes, defaultLimits.maxTextBytes);
  });

  it("refuses an empty roots list with one line", async () => {
    await refused(await withYaml("roots: []\n"), /^roots is an empty list; name at least one directory/);
  });

  it("refuses the same directory twice, once read-only and once not", async () => {
    await refused(
      await withYaml("roots:\n  - path: work\n  - path: work\n    read_only: true\n"),
      /^root .*work is listed twice, once read-only and once not; list each directory once in roots \(--root\)$/,
    );
  });

  it("refuses the same real path reached through a symlink", async () => {
    await refused(
      ["--root", "work", "--root", "link"],
      /^root .*link and .*work are the same directory \(.*work\); list each directory once in roots \(--root\)$/,
    );
  });
});
