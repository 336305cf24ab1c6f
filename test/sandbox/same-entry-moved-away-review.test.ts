// Review (review-handle, of 1b56804): sameEntryAndFolder was added to close ONE interleaving in
// confirmOnlyName (src/sandbox/only-name-check.ts): the held entry E moved from X to another
// folder Y between the lookup and the count, its name being unlinked there. In exactly that state
// X holds no entry of E's name any more, the addon's lookup of X/name fails (ENOENT), and the
// addon answers -1 ("the filesystem cannot tell"), which the caller treats as "skip the check":
// the interleaving stays as open as before. The filesystem CAN tell here (E's handle names Y);
// a missing or other entry at X/name must answer 0, only a filesystem without handles -1.
import assert from "node:assert/strict";
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { loadFsAt } from "../../src/sandbox/native/fs-at.js";
import { O_PATH } from "../../src/sandbox/path-handle.js";

const built = existsSync(fileURLToPath(new URL("../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built";

/** setup holds folder x (X) and x/a (E) as confirmOnlyName does, on the filesystem of tmpdir(). */
function setup(): { base: string; X: number; E: number; close(): void } {
  const base = mkdtempSync(path.join(tmpdir(), "moved-away-"));
  mkdirSync(path.join(base, "x"));
  mkdirSync(path.join(base, "y"));
  writeFileSync(path.join(base, "x", "a"), "a");
  const X = openSync(path.join(base, "x"), O_PATH | constants.O_DIRECTORY);
  const E = openSync(path.join(base, "x", "a"), O_PATH | constants.O_NOFOLLOW);
  return { base, X, E, close: () => [X, E].forEach((fd) => closeSync(fd)) };
}

describe("sameEntryAndFolder, review: the interleaving it was added for", { skip }, () => {
  it("answers 1 in place (this filesystem has connectable handles), then 0, not -1, once E moved to another folder", (t) => {
    const s = setup();
    try {
      if (fsAt!.sameEntryAndFolder(`/proc/self/fd/${s.X}/a`, `/proc/self/fd/${s.E}`) !== 1)
        return t.skip("no connectable handles here");
      renameSync(path.join(s.base, "x", "a"), path.join(s.base, "y", "a"));
      assert.equal(
        fsAt!.sameEntryAndFolder(`/proc/self/fd/${s.X}/a`, `/proc/self/fd/${s.E}`),
        0,
        "E is in y, not x: the caller skips the check on -1",
      );
    } finally {
      s.close();
    }
  });

  it("answers 0, not -1, when E moved to another folder and its name there was then unlinked (the outside link is all that is left)", (t) => {
    const s = setup();
    try {
      if (fsAt!.sameEntryAndFolder(`/proc/self/fd/${s.X}/a`, `/proc/self/fd/${s.E}`) !== 1)
        return t.skip("no connectable handles here");
      renameSync(path.join(s.base, "x", "a"), path.join(s.base, "y", "a"));
      linkSync(path.join(s.base, "y", "a"), path.join(s.base, "outside"));
      unlinkSync(path.join(s.base, "y", "a"));
      assert.equal(fsAt!.sameEntryAndFolder(`/proc/self/fd/${s.X}/a`, `/proc/self/fd/${s.E}`), 0);
    } finally {
      s.close();
    }
  });
});
