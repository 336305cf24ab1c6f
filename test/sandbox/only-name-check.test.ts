import assert from "node:assert/strict";
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { confirmOnlyName } from "../../src/sandbox/only-name-check.js";
import { snapshotTree, tempDir } from "./sandbox-fixture.js";

/** opened opens `file` for reading and returns its descriptor, its fstat and its /proc name. */
function opened(file: string): { fd: number; stats: ReturnType<typeof fstatSync>; named: string } {
  const fd = openSync(file, "r");
  return { fd, stats: fstatSync(fd), named: readlinkSync(`/proc/self/fd/${fd}`) };
}

/** folderWithFile makes <base>/root/d/a (one link) and opens it: the situation each case then changes. */
async function folderWithFile(): Promise<{
  base: string;
  root: string;
  fd: number;
  stats: ReturnType<typeof fstatSync>;
  named: string;
}> {
  const base = await tempDir("only-name");
  const root = path.join(base, "root");
  mkdirSync(path.join(root, "d"), { recursive: true });
  writeFileSync(path.join(root, "d", "a"), "in root");
  return { base, root, ...opened(path.join(root, "d", "a")) };
}

/** refusal runs confirmOnlyName and returns the reason it refused with ("" if it did not). */
function refusal(fd: number, stats: ReturnType<typeof fstatSync>, named: string): string {
  try {
    confirmOnlyName(fd, stats as never, named, "d/a");
    return "";
  } catch (err) {
    assert.ok(isToolhostError(err), String(err));
    assert.match(err.message, /"d\/a"/);
    return err.reason;
  }
}

describe("confirmOnlyName: the barrier is taken on the folder that holds the name", () => {
  it("accepts a file with one name in its folder, and changes nothing", async () => {
    const { root, fd, stats, named } = await folderWithFile();
    const before = await snapshotTree(root);
    try {
      assert.equal(refusal(fd, stats, named), "");
    } finally {
      closeSync(fd);
    }
    assert.deepEqual(await snapshotTree(root), before);
  });

  it("refuses (FILE_CHANGED) when another folder now stands at the folder's path, even with a file of that name", async () => {
    const { root, fd, stats, named } = await folderWithFile();
    try {
      renameSync(path.join(root, "d"), path.join(root, "e"));
      mkdirSync(path.join(root, "d"));
      writeFileSync(path.join(root, "d", "a"), "another file");
      assert.equal(refusal(fd, stats, named), "FILE_CHANGED");
    } finally {
      closeSync(fd);
    }
  });

  it("refuses (FILE_CHANGED) when the folder's path is now a link, even to the file's own folder", async () => {
    const { root, fd, stats, named } = await folderWithFile();
    try {
      renameSync(path.join(root, "d"), path.join(root, "e"));
      symlinkSync(path.join(root, "e"), path.join(root, "d"));
      assert.equal(refusal(fd, stats, named), "FILE_CHANGED");
    } finally {
      closeSync(fd);
    }
  });

  it("refuses (FILE_CHANGED) when the folder is gone, or the name was removed", async () => {
    const { root, fd, stats, named } = await folderWithFile();
    try {
      renameSync(path.join(root, "d"), path.join(root, "e"));
      assert.equal(refusal(fd, stats, named), "FILE_CHANGED");
      renameSync(path.join(root, "e", "a"), path.join(root, "e", "b"));
      renameSync(path.join(root, "e"), path.join(root, "d"));
      assert.equal(refusal(fd, stats, named), "FILE_CHANGED");
    } finally {
      closeSync(fd);
    }
  });

  it("refuses (PATH_TRAVERSAL) a file that has gained a second name since it was counted", async () => {
    const { base, root, fd, stats, named } = await folderWithFile();
    try {
      linkSync(path.join(root, "d", "a"), path.join(base, "outside-name"));
      assert.equal(refusal(fd, stats, named), "PATH_TRAVERSAL");
    } finally {
      closeSync(fd);
    }
  });
});
