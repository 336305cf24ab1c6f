import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { lstatEntrySync } from "../../../src/sandbox/lstat-entry.js";
import { loadFsAt } from "../../../src/sandbox/native/fs-at.js";
import type { OpenedDirectory } from "../../../src/sandbox/open-directory.js";
import { O_PATH } from "../../../src/sandbox/path-handle.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

/** held makes a folder of every kind of entry, with awkward times, held with O_PATH as a listing holds it. */
function held(): { dir: string; opened: OpenedDirectory; names: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), "lstat-at-"));
  writeFileSync(path.join(dir, "file.txt"), "12345");
  writeFileSync(path.join(dir, "linked.txt"), "abc");
  linkSync(path.join(dir, "linked.txt"), path.join(dir, "other-name.txt"));
  mkdirSync(path.join(dir, "sub"));
  symlinkSync("file.txt", path.join(dir, "link"));
  symlinkSync("/nowhere", path.join(dir, "dangling"));
  execFileSync("mkfifo", [path.join(dir, "fifo")]);
  writeFileSync(path.join(dir, "é ü 😀"), "x");
  // Sub-millisecond and pre-1970 times: node:fs rounds milliseconds, and so must this.
  for (const [name, when] of [
    ["late.txt", "2020-01-01 00:00:00.9996"],
    ["old.txt", "1960-01-01 00:00:00.9996"],
    ["older.txt", "1960-01-01 00:00:00.0004"],
  ] as const) {
    writeFileSync(path.join(dir, name), "t");
    execFileSync("touch", ["-h", "-d", when, path.join(dir, name)]);
  }
  const fd = openSync(dir, O_PATH | constants.O_DIRECTORY);
  const opened: OpenedDirectory = {
    path: `/proc/self/fd/${fd}`,
    fd,
    realPath: dir,
    local: true,
    close: async () => closeSync(fd),
  };
  const names = [
    "file.txt",
    "linked.txt",
    "sub",
    "link",
    "dangling",
    "fifo",
    "é ü 😀",
    "late.txt",
    "old.txt",
    "older.txt",
  ];
  return { dir, opened, names };
}

describe("lstatAt and lstatEntrySync", { skip }, () => {
  it("answer what lstat of the same entry answers, for every kind and time", () => {
    const { dir, opened, names } = held();
    try {
      for (const name of names) {
        const want = lstatSync(path.join(dir, name));
        const got = lstatEntrySync(opened, name);
        assert.ok(got !== undefined, name);
        assert.deepEqual(
          {
            mode: got.mode,
            nlink: got.nlink,
            size: got.size,
            mtime: got.mtime.getTime(),
            file: got.isFile(),
            directory: got.isDirectory(),
            symlink: got.isSymbolicLink(),
          },
          {
            mode: want.mode,
            nlink: want.nlink,
            size: want.size,
            mtime: want.mtime.getTime(),
            file: want.isFile(),
            directory: want.isDirectory(),
            symlink: want.isSymbolicLink(),
          },
          name,
        );
      }
    } finally {
      void opened.close();
      rmSync(dir, { recursive: true });
    }
  });

  it("answer nothing for a gone entry or a name that is not one entry, and never follow a path", () => {
    const { dir, opened } = held();
    try {
      assert.equal(lstatEntrySync(opened, "missing"), undefined);
      const out = new Float64Array(5);
      for (const bad of ["sub/../file.txt", "", ".", "..", "a\0b", `${"n".repeat(256)}`]) {
        assert.equal(fsAt!.lstatAt(opened.fd, bad, out), -22, `${JSON.stringify(bad)}: EINVAL, not an entry`);
      }
      assert.equal(fsAt!.lstatAt(opened.fd, "missing", out), -2);
      assert.throws(() => fsAt!.lstatAt(opened.fd, "file.txt", new Float64Array(4)), TypeError);
      assert.throws(() => fsAt!.lstatAt(-1, "file.txt", out), TypeError);
      assert.throws(() => fsAt!.lstatAt(opened.fd, "file.txt", new Float32Array(5) as never), TypeError);
    } finally {
      void opened.close();
      rmSync(dir, { recursive: true });
    }
  });
});
