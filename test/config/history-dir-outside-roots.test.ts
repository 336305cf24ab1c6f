import assert from "node:assert/strict";
import { mkdir, mkdtemp, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { ConfigError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { checkStartUpInputs } from "../../src/config/start-up-inputs.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";

// The history holds every file's earlier contents; inside a root, any client reads them by path.
// The check compared the two paths as text, so a history folder reached through a symlink, a
// root named through one, or a folder whose name merely starts with ".." passed it.
describe("history.dir must lie outside every root, however the paths are spelled", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-histdir-"));
    await mkdir(join(dir, "work", "..state"), { recursive: true });
    await symlink(join(dir, "work"), join(dir, "work-link"));
    await mkdir(join(dir, "outside"));
  });

  async function refused(argv: string[]): Promise<void> {
    await assert.rejects(checkStartUpInputs(await loadConfig(parseServeFlags(argv), {}, dir)), (err: unknown) => {
      assert.ok(err instanceof ConfigError, `not a ConfigError: ${String(err)}`);
      assert.match(err.message, /lies inside the root/);
      return true;
    });
  }

  it("refuses a folder named ..state inside the root", async () => {
    await refused(["--root", join(dir, "work"), "--history-dir", join(dir, "work", "..state", "history")]);
  });

  it("refuses a folder inside the root reached through a symlink", async () => {
    await refused(["--root", join(dir, "work"), "--history-dir", join(dir, "work-link", "history")]);
  });

  it("refuses a folder inside a root that is named through a symlink", async () => {
    await refused(["--root", join(dir, "work-link"), "--history-dir", join(dir, "work", "state")]);
  });

  it("accepts a folder outside, existing or not", async () => {
    const config = await loadConfig(
      parseServeFlags(["--root", join(dir, "work"), "--history-dir", join(dir, "outside", "a", "b")]),
      {},
      dir,
    );
    await checkStartUpInputs(config);
    assert.equal(config.history?.dir, join(dir, "outside", "a", "b"));
  });
});
