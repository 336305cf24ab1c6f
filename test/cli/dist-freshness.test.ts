import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
// @ts-expect-error -- a plain .mjs build script without type declarations
import { staleReason } from "../../scripts/dist-freshness.mjs";

// The default tier's check of `npm start`'s build step; the packed and installed server is
// checked in the stress tier (test/clients/server-package.stress.test.ts).
describe("npm start's build check (scripts/dist-freshness.mjs)", () => {
  it("rebuilds only when dist/ is missing or a source is newer than it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolhost-freshness-"));
    try {
      await mkdir(join(dir, "src"), { recursive: true });
      await writeFile(join(dir, "src/cli.ts"), "");
      assert.equal(staleReason(dir), "dist/ has not been built");
      await mkdir(join(dir, "dist/src"), { recursive: true });
      await writeFile(join(dir, "dist/src/cli.js"), "");
      await writeFile(join(dir, "dist/cli.js"), "");
      const past = new Date(Date.now() - 60_000);
      await utimes(join(dir, "src/cli.ts"), past, past);
      await utimes(join(dir, "src"), past, past);
      assert.equal(staleReason(dir), undefined);
      await writeFile(join(dir, "src/cli.ts"), "changed");
      const future = new Date(Date.now() + 60_000);
      await utimes(join(dir, "src/cli.ts"), future, future);
      assert.equal(staleReason(dir), "src changed since the last build");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
