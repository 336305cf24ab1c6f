import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { waitForFolderChanges } from "../../../src/sandbox/folder-barrier.js";
import { loadFsAt } from "../../../src/sandbox/native/fs-at.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

describe("the folder barrier", () => {
  it("natively: true for a folder, false for a missing one, null for a path that cannot be one", { skip }, () => {
    const addon = loadFsAt({})!;
    const dir = mkdtempSync(path.join(tmpdir(), "barrier-"));
    assert.equal(addon.folderBarrier(dir), true);
    assert.equal(addon.folderBarrier(path.join(dir, "missing")), false);
    assert.equal(addon.folderBarrier(`${dir}\0/x`), null);
    assert.equal(addon.folderBarrier("x".repeat(5000)), null);
    assert.equal(addon.folderBarrier(12 as unknown as string), null);
  });

  it("waitForFolderChanges answers the same with the addon and without it (TOOLHOST_NATIVE=0)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "barrier-"));
    const here = [waitForFolderChanges(dir), waitForFolderChanges(path.join(dir, "missing"))];
    assert.deepEqual(here, [true, false]);
    const script = `import { waitForFolderChanges } from ${JSON.stringify(fileURLToPath(new URL("../../../src/sandbox/folder-barrier.ts", import.meta.url)))};
      console.log(JSON.stringify([waitForFolderChanges(${JSON.stringify(dir)}), waitForFolderChanges(${JSON.stringify(path.join(dir, "missing"))})]));`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, TOOLHOST_NATIVE: "0" },
      encoding: "utf8",
    });
    assert.deepEqual(JSON.parse(out), here);
  });
});
