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
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { loadFsAt } from "../../../src/sandbox/native/fs-at.js";
import { O_PATH } from "../../../src/sandbox/path-handle.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

/** held opens `file` with O_PATH (as the sandbox holds an entry) and its folder, and returns both. */
function held(file: string): { entry: number; folder: number; close(): void } {
  const folder = openSync(path.dirname(file), O_PATH | constants.O_DIRECTORY);
  const entry = openSync(file, O_PATH | constants.O_NOFOLLOW);
  return { entry, folder, close: () => [entry, folder].forEach((fd) => closeSync(fd)) };
}

/** connectable tells whether the filesystem under `dir` gives connectable file handles. */
function connectable(dir: string): boolean {
  writeFileSync(path.join(dir, "probe"), "");
  const h = held(path.join(dir, "probe"));
  try {
    return fsAt!.sameEntryAndFolder(`/proc/self/fd/${h.folder}/probe`, `/proc/self/fd/${h.entry}`) !== -1;
  } finally {
    h.close();
  }
}

describe("sameEntryAndFolder: the same inode in the same folder, by connectable file handles", { skip }, () => {
  const base = mkdtempSync(path.join(tmpdir(), "same-entry-"));
  const where = connectable(base) ? false : "this filesystem (or kernel < 6.13) gives no connectable handles";

  it("is 1 for a file looked up in the folder that holds it", { skip: where }, () => {
    mkdirSync(path.join(base, "x"));
    writeFileSync(path.join(base, "x", "a"), "a");
    const h = held(path.join(base, "x", "a"));
    try {
      assert.equal(fsAt!.sameEntryAndFolder(`/proc/self/fd/${h.folder}/a`, `/proc/self/fd/${h.entry}`), 1);
    } finally {
      h.close();
    }
  });

  it("is 0 for the same inode whose held name moved to another folder (another link left in its place)", {
    skip: where,
  }, () => {
    mkdirSync(path.join(base, "p"));
    mkdirSync(path.join(base, "q"));
    writeFileSync(path.join(base, "p", "a"), "a");
    const h = held(path.join(base, "p", "a"));
    try {
      renameSync(path.join(base, "p", "a"), path.join(base, "q", "a"));
      linkSync(path.join(base, "q", "a"), path.join(base, "p", "a")); // same inode, same name, in p
      assert.equal(fsAt!.sameEntryAndFolder(`/proc/self/fd/${h.folder}/a`, `/proc/self/fd/${h.entry}`), 0);
    } finally {
      h.close();
    }
  });

  it("is 0 for another file of the same name in the folder", { skip: where }, () => {
    mkdirSync(path.join(base, "r"));
    writeFileSync(path.join(base, "r", "a"), "a");
    const h = held(path.join(base, "r", "a"));
    try {
      renameSync(path.join(base, "r", "a"), path.join(base, "r", "old"));
      writeFileSync(path.join(base, "r", "a"), "another");
      assert.equal(fsAt!.sameEntryAndFolder(`/proc/self/fd/${h.folder}/a`, `/proc/self/fd/${h.entry}`), 0);
    } finally {
      h.close();
    }
  });

  it("is -1 where the filesystem has no connectable handles (tmpfs), and null for a bad argument", () => {
    if (existsSync("/dev/shm")) {
      const shm = mkdtempSync("/dev/shm/same-entry-");
      writeFileSync(path.join(shm, "a"), "a");
      const h = held(path.join(shm, "a"));
      try {
        const answer = fsAt!.sameEntryAndFolder(`/proc/self/fd/${h.folder}/a`, `/proc/self/fd/${h.entry}`);
        assert.ok(answer === -1 || answer === 1, `tmpfs answered ${answer}`); // 1 once tmpfs learns them
      } finally {
        h.close();
      }
    }
    assert.equal(fsAt!.sameEntryAndFolder("", "/x"), null);
    assert.equal(fsAt!.sameEntryAndFolder("/x\0y", "/x"), null);
    assert.equal(fsAt!.sameEntryAndFolder(`/${"a".repeat(5000)}`, "/x"), null);
  });
});
