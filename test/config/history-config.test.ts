import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ConfigError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { checkStartUpInputs } from "../../src/config/start-up-inputs.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";

describe("history config", () => {
  it("is on by default, in the state folder", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolhost-hc-"));
    const config = await loadConfig(
      parseServeFlags(["--root", root]),
      { TOOLHOST_STATE_DIR: "/var/tmp/th-state" },
      root,
    );
    assert.equal(config.history?.dir, "/var/tmp/th-state/history");
    assert.equal(config.history?.maxFileBytes, 16 * 1024 * 1024);
  });

  it("is off with --no-history", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolhost-hc-"));
    const config = await loadConfig(parseServeFlags(["--root", root, "--no-history"]), {}, root);
    assert.equal(config.history, undefined);
  });

  it("refuses a history folder inside a root", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolhost-hc-"));
    const config = await loadConfig(parseServeFlags(["--root", root, "--history-dir", join(root, "h")]), {}, root);
    await assert.rejects(
      checkStartUpInputs(config),
      (err: unknown) => err instanceof ConfigError && /lies inside the root/.test(err.message),
    );
  });

  it("takes YAML bounds and refuses unknown keys and bad values", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolhost-hc-"));
    const file = join(root, "..", `hc-${Date.now()}.yaml`);
    await writeFile(file, `roots: [${root}]\nhistory:\n  dir: /var/tmp/th-h\n  max_bytes: 4096\n  max_age_hours: 2\n`);
    const config = await loadConfig(parseServeFlags(["--config", file]), {}, root);
    assert.deepEqual(
      [config.history?.dir, config.history?.maxBytes, config.history?.maxAgeMs],
      ["/var/tmp/th-h", 4096, 7_200_000],
    );
    assert.equal(config.history?.maxFileBytes, 4096, "the default max_file_bytes is never more than max_bytes");
    await writeFile(file, `roots: [${root}]\nhistory:\n  max_bytes: 4096\n  max_file_bytes: 4097\n`);
    await assert.rejects(
      loadConfig(parseServeFlags(["--config", file]), {}, root),
      /history.max_file_bytes \(4097\) is larger than history.max_bytes \(4096\)/,
    );
    await writeFile(file, `roots: [${root}]\nhistory:\n  size: 3\n`);
    await assert.rejects(loadConfig(parseServeFlags(["--config", file]), {}, root), /unknown key "history.size"/);
    await writeFile(file, `roots: [${root}]\nhistory:\n  max_bytes: -1\n`);
    await assert.rejects(
      loadConfig(parseServeFlags(["--config", file]), {}, root),
      /history.max_bytes .* must be a positive whole number/,
    );
  });
});
