import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../src/config/config-error.js";
import { defaultLimits } from "../../src/config/config.js";
import { loadConfig } from "../../src/config/load-config.js";
import { checkStartUpInputs } from "../../src/config/start-up-inputs.js";
import { bundledSkillsRoot } from "../../src/config/package-root.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";

let dir: string;

async function configFile(yaml: string): Promise<string> {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  return file;
}

/** checked is loadConfig followed by the start-up input check startServer runs first. */
async function checked(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const config = await loadConfig(parseServeFlags(argv), env, dir);
  await checkStartUpInputs(config);
  return config;
}

async function refused(argv: string[], expected: RegExp, env: NodeJS.ProcessEnv = {}): Promise<void> {
  await assert.rejects(checked(argv, env), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `not a ConfigError: ${String(err)}`);
    assert.match(err.message, expected);
    assert.doesNotMatch(err.message, /\n/, "a config error is one line");
    return true;
  });
}

describe("loadConfig", () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-config-"));
    await mkdir(join(dir, "work"));
    await mkdir(join(dir, "skills"));
  });

  it("defaults to the current directory on loopback with the bundled example skills", async () => {
    const config = await loadConfig(parseServeFlags([]), {}, dir);
    assert.equal(config.listen, "127.0.0.1:50051");
    assert.equal(config.httpListen, undefined);
    assert.deepEqual(config.roots, [{ path: dir, readOnly: false }]);
    assert.deepEqual(config.skills, [{ path: bundledSkillsRoot(), namespace: "examples" }]);
    assert.deepEqual(config.limits, defaultLimits);
    assert.equal(config.readOnly, false);
    assert.equal(config.log.level, "info");
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.roots));
  });

  it("reads every YAML key, resolving paths against the file's folder", async () => {
    const file = await configFile(`
listen: 127.0.0.1:6000
http_listen: 127.0.0.1:6001
roots:
  - path: work
    read_only: true
  - .
skills:
  - path: skills
    namespace: team
read_only: true
limits:
  max_text_bytes: 1000
  chunk_size: 65536
log:
  level: warn
shutdown_grace_ms: 500
`);
    const config = await loadConfig(parseServeFlags(["--config", file]), {}, "/");
    assert.equal(config.listen, "127.0.0.1:6000");
    assert.equal(config.httpListen, "127.0.0.1:6001");
    assert.deepEqual(config.roots, [
      { path: join(dir, "work"), readOnly: true },
      { path: dir, readOnly: false },
    ]);
    assert.deepEqual(config.skills, [{ path: join(dir, "skills"), namespace: "team" }]);
    assert.equal(config.readOnly, true);
    assert.equal(config.limits.maxTextBytes, 1000);
    assert.equal(config.limits.chunkSize, 65536);
    assert.equal(config.log.level, "warn");
    assert.equal(config.shutdownGraceMs, 500);
  });

  it("lets flags override the environment and the environment override the file", async () => {
    const file = await configFile("listen: 127.0.0.1:6000\nlog:\n  level: warn\n");
    const fromEnv = await loadConfig(parseServeFlags(["--config", file]), { TOOLHOST_LISTEN: "127.0.0.1:7000" }, dir);
    assert.equal(fromEnv.listen, "127.0.0.1:7000");
    const fromFlags = await loadConfig(
      parseServeFlags([
        "--config",
        file,
        "--listen",
        "127.0.0.1:8000",
        "--log-level",
        "debug",
        "--root",
        "work",
        "--skills",
        "ns=skills",
        "--read-only",
        "--max-text-bytes",
        "42",
      ]),
      { TOOLHOST_LISTEN: "127.0.0.1:7000" },
      dir,
    );
    assert.equal(fromFlags.listen, "127.0.0.1:8000");
    assert.equal(fromFlags.log.level, "debug");
    assert.deepEqual(fromFlags.roots, [{ path: join(dir, "work"), readOnly: false }]);
    assert.deepEqual(fromFlags.skills, [{ path: join(dir, "skills"), namespace: "ns" }]);
    assert.equal(fromFlags.readOnly, true);
    assert.equal(fromFlags.limits.maxTextBytes, 42);
  });

  it("reads sandbox.allow_hard_links from the file, TOOLHOST_ALLOW_HARD_LINKS and --allow-hard-links; off by default", async () => {
    assert.equal((await loadConfig(parseServeFlags([]), {}, dir)).sandbox.allowHardLinks, false);
    const on = await configFile("sandbox:\n  allow_hard_links: true\n");
    assert.equal((await loadConfig(parseServeFlags(["--config", on]), {}, dir)).sandbox.allowHardLinks, true);
    assert.equal(
      (await loadConfig(parseServeFlags(["--config", on]), { TOOLHOST_ALLOW_HARD_LINKS: "false" }, dir)).sandbox
        .allowHardLinks,
      false,
    );
    assert.equal(
      (await loadConfig(parseServeFlags([]), { TOOLHOST_ALLOW_HARD_LINKS: "1" }, dir)).sandbox.allowHardLinks,
      true,
    );
    assert.equal((await loadConfig(parseServeFlags(["--allow-hard-links"]), {}, dir)).sandbox.allowHardLinks, true);
    await refused([], /^TOOLHOST_ALLOW_HARD_LINKS must be true, false, 1 or 0, not "yes"$/, {
      TOOLHOST_ALLOW_HARD_LINKS: "yes",
    });
    await refused(
      ["--config", await configFile("sandbox:\n  allow_hard_links: 1\n")],
      /^sandbox\.allow_hard_links in .* must be true or false$/,
    );
    await refused(
      ["--config", await configFile("sandbox:\n  hard_links: true\n")],
      /^unknown key "sandbox\.hard_links" in .*; known keys: sandbox\.allow_hard_links$/,
    );
  });

  it("accepts TOOLHOST_GRPC_HOST only unset, empty or node-http2, the one gRPC host", async () => {
    for (const env of [{}, { TOOLHOST_GRPC_HOST: "" }, { TOOLHOST_GRPC_HOST: "node-http2" }]) {
      assert.equal((await loadConfig(parseServeFlags([]), env, dir)).listen, "127.0.0.1:50051");
    }
    for (const value of ["grpc-js", "h2"]) {
      await refused(
        [],
        new RegExp(
          `^TOOLHOST_GRPC_HOST is "${value}"; the gRPC listener is hosted on node:http2 only now \\(docs/adr/0004-server-host\\.md\\): unset it$`,
        ),
        { TOOLHOST_GRPC_HOST: value },
      );
    }
  });

  it("refuses an unknown key and names the known ones", async () => {
    const file = await configFile("listen: 127.0.0.1:6000\nrots: [work]\n");
    await refused(
      ["--config", file],
      /^unknown key "rots" in .*config-.*\.yaml; known keys: listen, http_listen, metrics_listen, mcp_listen, roots, skills/,
    );
  });

  it("refuses an unknown nested key", async () => {
    const file = await configFile("limits:\n  max_text: 5\n");
    await refused(["--config", file], /^unknown key "limits.max_text" in .*; known keys: limits.max_text_bytes/);
  });

  it("refuses a value of the wrong type", async () => {
    const file = await configFile("read_only: yes please\n");
    await refused(["--config", file], /^read_only in .* must be true or false$/);
    const limits = await configFile("limits:\n  chunk_size: -1\n");
    await refused(["--config", limits], /^limits.chunk_size in .* must be a positive whole number$/);
  });

  it("refuses unparsable YAML", async () => {
    const file = await configFile("roots: [work\n");
    await refused(["--config", file], /^config file .* is not valid YAML: /);
  });

  it("refuses a config file that does not exist", async () => {
    await refused(
      ["--config", "missing.yaml"],
      /^config file .*missing\.yaml cannot be read \(ENOENT\); check the --config path \(TOOLHOST_CONFIG\)$/,
    );
  });

  it("refuses a missing root and says what to do", async () => {
    await refused(
      ["--root", "nowhere"],
      /^root folder .*nowhere not found; create it or fix roots\[0\]\.path \(--root\)$/,
    );
  });

  it("refuses a root that is a file", async () => {
    const file = await configFile("x: 1\n");
    await refused(["--root", file], /is a regular file, not a directory; fix roots\[0\]\.path \(--root\)$/);
  });

  it("refuses a non-loopback listener without --insecure, and allows it with", async () => {
    await refused(
      ["--listen", "0.0.0.0:50051"],
      /^refusing to listen on 0\.0\.0\.0:50051 without TLS and authentication: .*pass --insecure/,
    );
    const config = await loadConfig(parseServeFlags(["--listen", "0.0.0.0:50051", "--insecure"]), {}, dir);
    assert.equal(config.insecure, true);
    const v6 = await loadConfig(parseServeFlags(["--listen", "[::1]:50051"]), {}, dir);
    assert.equal(v6.listen, "[::1]:50051");
  });

  it("takes --metrics-listen and metrics_listen, under the same loopback rule as the other listeners", async () => {
    await refused(
      ["--metrics-listen", "0.0.0.0:9464"],
      /^refusing to listen on 0\.0\.0\.0:9464 without TLS and authentication/,
    );
    assert.equal(
      (await loadConfig(parseServeFlags(["--metrics-listen", "127.0.0.1:9464"]), {}, dir)).metricsListen,
      "127.0.0.1:9464",
    );
    const file = await configFile("metrics_listen: 127.0.0.1:9465\n");
    assert.equal((await loadConfig(parseServeFlags(["--config", file]), {}, dir)).metricsListen, "127.0.0.1:9465");
    assert.equal((await loadConfig(parseServeFlags([]), {}, dir)).metricsListen, undefined);
  });

  it("refuses a malformed listen address", async () => {
    await refused(["--listen", "50051"], /^listen address "50051" is not HOST:PORT/);
  });

  it("refuses an unknown flag and a bad log level", async () => {
    assert.throws(
      () => parseServeFlags(["--rooot", "x"]),
      (err: unknown) =>
        err instanceof ConfigError && /Unknown option '--rooot'.*see toolhost serve --help/.test(err.message),
    );
    await refused(["--log-level", "loud"], /^log level "loud" is not one of trace, debug, info/);
  });

  it("reads the request bounds of EditFile, WatchSkills and skill reload from limits", async () => {
    const file = await configFile(
      "limits:\n  max_edits_per_call: 10\n  max_edit_diff_bytes: 4096\n  edit_diff_timeout_ms: 50\n  max_watch_pending_events: 7\n  skill_reload_max_wait_ms: 500\n",
    );
    const config = await loadConfig(parseServeFlags(["--config", file]), {}, dir);
    assert.deepEqual(
      [
        config.limits.maxEditsPerCall,
        config.limits.maxEditDiffBytes,
        config.limits.editDiffTimeoutMs,
        config.limits.maxWatchPendingEvents,
        config.limits.skillReloadMaxWaitMs,
      ],
      [10, 4096, 50, 7, 500],
    );
  });

  it("refuses a diff budget above the send limit and waits over a minute", async () => {
    await refused(
      ["--config", await configFile("limits:\n  max_edit_diff_bytes: 4194304\n")],
      /^limits.max_edit_diff_bytes \(4194304\) is above limits.max_chunk_size \(3145728\), so an EditFile reply could exceed the send limit; lower it$/,
    );
    await refused(
      ["--config", await configFile("limits:\n  edit_diff_timeout_ms: 60001\n")],
      /^limits.edit_diff_timeout_ms \(60001\) is over 60000, 60000 ms/,
    );
    await refused(
      ["--config", await configFile("limits:\n  skill_reload_max_wait_ms: 3000000000\n")],
      /^limits.skill_reload_max_wait_ms \(3000000000\) is over 60000, 60000 ms/,
    );
  });

  it("refuses a chunk size outside the chunk size range", async () => {
    await refused(
      ["--chunk-size", "1"],
      /^limits.chunk_size \(1\) must lie between min_chunk_size \(4096\) and max_chunk_size/,
    );
  });
});
