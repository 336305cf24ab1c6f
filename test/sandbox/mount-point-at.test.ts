import assert from "node:assert/strict";
import { closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { describe, it } from "node:test";
import { entryMountAt } from "../../src/sandbox/mount-point-at.js";
import { fsAt, type FsAt } from "../../src/sandbox/native/fs-at.js";
import { O_PATH } from "../../src/sandbox/path-handle.js";

/** refusing is an addon whose openat2 is refused (a seccomp filter, a kernel before 5.6), counting its calls. */
function refusing(errno: number): FsAt & { calls: number } {
  const fake = { ...(fsAt ?? ({} as FsAt)), calls: 0, holdOnFolderMount: () => (fake.calls++, -errno) };
  return fake;
}

describe("entryMountAt", () => {
  it("asks through the held folder: /proc is a mount point, /etc an entry held on the folder's own mount", {
    skip: fsAt === undefined ? "addon not built" : false,
  }, () => {
    const root = openSync("/", O_PATH | constants.O_DIRECTORY);
    try {
      assert.deepEqual(entryMountAt(root, "proc", "/proc"), { mountPoint: true, held: undefined });
      const etc = entryMountAt(root, "etc", "/etc");
      assert.equal(etc.mountPoint, false);
      assert.ok(etc.held !== undefined);
      assert.equal(fstatSync(etc.held).ino, statSync("/etc").ino, "the entry itself is held");
      closeSync(etc.held);
      assert.deepEqual(entryMountAt(root, "no-such-entry", "/no-such-entry"), { mountPoint: false, held: undefined });
    } finally {
      closeSync(root);
    }
  });

  it("without the addon, or once openat2 is refused, answers from the mount table by path, holding nothing", () => {
    const root = openSync("/", O_PATH | constants.O_DIRECTORY);
    try {
      assert.deepEqual(entryMountAt(root, "proc", "/proc", null), { mountPoint: true, held: undefined });
      assert.deepEqual(entryMountAt(root, "etc", "/etc", null), { mountPoint: false, held: undefined });
      const addon = refusing(osConstants.errno.ENOSYS);
      assert.deepEqual(entryMountAt(root, "proc", "/proc", addon), { mountPoint: true, held: undefined });
      assert.deepEqual(entryMountAt(root, "etc", "/etc", addon), { mountPoint: false, held: undefined });
      assert.equal(addon.calls, 1, "openat2 is not asked again once refused");
    } finally {
      closeSync(root);
    }
  });
});
