import assert from "node:assert/strict";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { crashedTempName, scratchDir } from "./write-fixtures.js";

describe("removeStaleTempFiles with a read-only root nested in a writable one", () => {
  it("does not walk into the read-only root, however it is named", async () => {
    const base = await scratchDir("nested-roots-");
    const writable = path.join(base, "rw");
    const readOnly = path.join(writable, "vendor/ro");
    await mkdir(path.join(readOnly, "deep"), { recursive: true });
    await symlink(readOnly, path.join(base, "ro-alias"));
    const stale = path.join(writable, "vendor", crashedTempName());
    const protectedNames = [crashedTempName(), crashedTempName()];
    await writeFile(stale, "crashed");
    await writeFile(path.join(readOnly, protectedNames[0]!), "not ours to remove");
    await writeFile(path.join(readOnly, "deep", protectedNames[1]!), "not ours either");
    for (const readOnlyPath of [readOnly, path.join(base, "ro-alias")]) {
      const report = await removeStaleTempFiles([
        { path: writable, readOnly: false },
        { path: readOnlyPath, readOnly: true },
      ]);
      assert.deepEqual(report.failures, []);
      assert.deepEqual(await readdir(readOnly), ["deep", protectedNames[0]!].sort());
      assert.deepEqual(await readdir(path.join(readOnly, "deep")), [protectedNames[1]!]);
    }
    assert.deepEqual(await readdir(path.join(writable, "vendor")), ["ro"]);
  });
});
