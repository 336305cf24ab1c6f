// review-config (issue 27 review): start-up inputs the checks of #3, #11 and #13 did not reach.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import pino from "pino";
import { startServer } from "../../src/app/start-server.js";
import { ConfigError } from "../../src/config/config-error.js";
import { defaultLimits, type Config } from "../../src/config/config.js";
import { loadConfig } from "../../src/config/load-config.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { checkStartUpInputs } from "../../src/config/start-up-inputs.js";

async function fresh(): Promise<string> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "toolhost-inputs-review-")));
  await mkdir(join(base, "work"));
  return base;
}

function configWith(base: string, historyDir: string): Config {
  return {
    listen: "127.0.0.1:0",
    httpListen: undefined,
    roots: [{ path: join(base, "work"), readOnly: false }],
    skills: [],
    readOnly: false,
    insecure: false,
    limits: defaultLimits,
    log: { level: "silent" },
    shutdownGraceMs: 100,
    sandbox: { allowHardLinks: false },
    history: { dir: historyDir, maxBytes: 1 << 20, maxAgeMs: 3_600_000, maxFileBytes: 1 << 16, maxEntriesPerFile: 100 },
  };
}

describe("start-up inputs, reviewed", () => {
  // Node's recursive mkdir retries for ever where mkdir answers ENOENT under an existing parent:
  // start-up spun at full CPU with no line. The node:test timeout is the hang guard.
  it("refuses a history folder that cannot be made under /proc, with one line", { timeout: 30_000 }, async (t) => {
    if (!existsSync("/proc/self")) return t.skip("no /proc");
    const base = await fresh();
    await assert.rejects(checkStartUpInputs(configWith(base, "/proc/self/toolhost-history")), (err: unknown) => {
      assert.ok(err instanceof ConfigError, String(err));
      assert.equal(
        err.message,
        "history folder /proc/self/toolhost-history cannot be written (ENOENT); Choose a folder apart from every root and skill root (--history-dir), or turn history off (--no-history)",
      );
      return true;
    });
  });

  it("makes a missing history folder and each missing ancestor, mode 0700", async () => {
    const base = await fresh();
    const dir = join(base, "state", "deep", "history");
    await checkStartUpInputs(configWith(base, dir));
    for (const folder of [join(base, "state"), join(base, "state", "deep"), dir]) {
      const info = await stat(folder);
      assert.ok(info.isDirectory(), folder);
      assert.equal(info.mode & 0o777, 0o700, folder);
    }
  });

  // The state folder also holds the staging journal (staging/), which every recursive CopyFile
  // writes and the start-up sweep trusts; with --no-history it is checked nowhere. Inside a root,
  // callers read the journal (real paths and names of other roots' staging folders) and the sweep
  // gives up on it (JOURNAL_IN_ROOT), so a crash's staging trees stay; as /dev/null, every record
  // fails and crash recovery is silently off.
  for (const [what, stateDir] of [
    ["inside a root", (base: string) => join(base, "work", "state")],
    ["a character device", () => "/dev/null"],
  ] as const) {
    it(`refuses TOOLHOST_STATE_DIR ${what} with --no-history too`, async () => {
      const base = await fresh();
      const env = { TOOLHOST_STATE_DIR: stateDir(base) };
      const saved = process.env["TOOLHOST_STATE_DIR"];
      process.env["TOOLHOST_STATE_DIR"] = env.TOOLHOST_STATE_DIR;
      try {
        await mkdir(join(base, "skills"));
        const config = await loadConfig(
          parseServeFlags([
            "--root",
            join(base, "work"),
            "--skills",
            join(base, "skills"),
            "--no-history",
            "--listen",
            "127.0.0.1:0",
          ]),
          env,
          base,
        );
        const outcome = await startServer(config, pino({ level: "silent" })).then(
          async (server) => (await server.close(), "started"),
          (err: unknown) => err,
        );
        assert.ok(outcome instanceof ConfigError, `not a ConfigError: ${String(outcome)}`);
        assert.match(outcome.message, /state folder/);
        assert.doesNotMatch(outcome.message, /\n/);
      } finally {
        if (saved === undefined) delete process.env["TOOLHOST_STATE_DIR"];
        else process.env["TOOLHOST_STATE_DIR"] = saved;
      }
    });
  }
});
