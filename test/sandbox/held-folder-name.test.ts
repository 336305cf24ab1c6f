import assert from "node:assert/strict";
import { closeSync, constants, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { namedInHeldFolder } from "../../src/sandbox/content/content-folder.js";
import { tempDir } from "./sandbox-fixture.js";

// namedInHeldFolder is the content path's one-name check for the entry of a held folder
// (openContentAt): the file must still be that folder's entry `name`, wherever the folder is now.
describe("namedInHeldFolder", () => {
  it("accepts the held folder's entry, also once the folder itself was renamed, and nothing else", async () => {
    const base = await tempDir("held-name");
    mkdirSync(path.join(base, "sub"));
    mkdirSync(path.join(base, "other"));
    for (const name of ["a", "moved", "removed", "x (deleted)"]) writeFileSync(path.join(base, "sub", name), name);
    linkSync(path.join(base, "sub", "removed"), path.join(base, "outside-name"));
    const folder = openSync(path.join(base, "sub"), constants.O_RDONLY | constants.O_DIRECTORY);
    const open = (name: string): number => openSync(path.join(base, "sub", name), constants.O_RDONLY);
    const [a, moved, removed, deleted] = ["a", "moved", "removed", "x (deleted)"].map(open) as [
      number,
      number,
      number,
      number,
    ];
    try {
      assert.equal(namedInHeldFolder(folder, "a", a), true);
      assert.equal(namedInHeldFolder(folder, "b", a), false, "another name of the folder");
      renameSync(path.join(base, "sub", "moved"), path.join(base, "other", "moved"));
      assert.equal(namedInHeldFolder(folder, "moved", moved), false, "moved to another folder");
      unlinkSync(path.join(base, "sub", "removed"));
      assert.equal(
        namedInHeldFolder(folder, "removed", removed),
        false,
        "its name in the folder removed, an outside name left",
      );
      assert.equal(
        namedInHeldFolder(folder, "x (deleted)", deleted),
        false,
        "a name the kernel's mark of a removed one cannot be told from",
      );
      renameSync(path.join(base, "sub"), path.join(base, "renamed"));
      assert.equal(namedInHeldFolder(folder, "a", a), true, "the held folder renamed: still its entry");
    } finally {
      for (const fd of [folder, a, moved, removed, deleted]) closeSync(fd);
    }
  });
});
