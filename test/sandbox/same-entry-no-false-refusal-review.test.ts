// Review (review-handle, of 1b56804): the connectable-handle check must not refuse a legitimate
// one-link file. Real sandbox reads (createSandbox, openContent) of files in the root folder
// itself, under "/" as the root, through a bind-mounted folder, a bind-mounted file, a folder
// bind-mounted onto itself, an ext4 image mounted as a folder, an overlayfs and a tmpfs (these two
// have no connectable handles: -1, the old checks), with a 255-byte name and odd bytes in a name.
// Needs root (mount); skipped otherwise. All passed on 6.18 (ext4 root).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readAtMost } from "../../src/files/read-at-most.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";

const base = mkdtempSync(path.join(tmpdir(), "same-entry-mounts-"));
const root = path.join(base, "root");
const mounted: string[] = [];
const long = `${"L".repeat(251)}.txt`;
const odd = "odd \n\\ \t é 😀 %2F $(x) ' \".txt";

/** mountAt runs mount with `args` onto root/`at`; false when this machine refuses. */
function mountAt(at: string, ...args: string[]): boolean {
  try {
    execFileSync("mount", [...args, path.join(root, at)], { stdio: "ignore" });
    mounted.unshift(path.join(root, at));
    return true;
  } catch {
    return false;
  }
}

const expected = new Map<string, string>([
  ["top.txt", "top"],
  [long, "long"],
  [odd, "odd"],
]);

before(() => {
  for (const d of ["root", "src", "lower", "upper", "work"]) mkdirSync(path.join(base, d));
  for (const [name, text] of expected) writeFileSync(path.join(root, name), text);
  writeFileSync(path.join(base, "src", "f.txt"), "bound");
  writeFileSync(path.join(base, "lower", "low.txt"), "low");
  mkdirSync(path.join(root, "bind"));
  if (mountAt("bind", "--bind", path.join(base, "src"))) expected.set("bind/f.txt", "bound");
  writeFileSync(path.join(root, "file-bind.txt"), "");
  if (mountAt("file-bind.txt", "--bind", path.join(base, "src", "f.txt"))) expected.set("file-bind.txt", "bound");
  mkdirSync(path.join(root, "self"));
  writeFileSync(path.join(root, "self", "g.txt"), "g");
  if (mountAt("self", "--bind", path.join(root, "self"))) expected.set("self/g.txt", "g");
  mkdirSync(path.join(root, "ovl"));
  if (
    mountAt(
      "ovl",
      "-t",
      "overlay",
      "overlay",
      "-o",
      `lowerdir=${base}/lower,upperdir=${base}/upper,workdir=${base}/work`,
    )
  ) {
    writeFileSync(path.join(root, "ovl", "up.txt"), "up");
    expected.set("ovl/low.txt", "low").set("ovl/up.txt", "up");
  }
  mkdirSync(path.join(root, "shm"));
  if (mountAt("shm", "-t", "tmpfs", "-o", "size=1m", "none")) {
    writeFileSync(path.join(root, "shm", "s.txt"), "s");
    expected.set("shm/s.txt", "s");
  }
  mkdirSync(path.join(root, "ext4"));
  try {
    execFileSync("truncate", ["-s", "8M", path.join(base, "img")]);
    execFileSync("mkfs.ext4", ["-q", path.join(base, "img")], { stdio: "ignore" });
    if (mountAt("ext4", "-o", "loop", path.join(base, "img"))) {
      writeFileSync(path.join(root, "ext4", "l.txt"), "loop");
      expected.set("ext4/l.txt", "loop");
    }
  } catch {
    // no mkfs.ext4 or loop devices: that case is left out
  }
});

after(() => {
  for (const at of mounted) execFileSync("umount", [at], { stdio: "ignore" });
  rmSync(base, { recursive: true, force: true });
});

describe("the connectable-handle check refuses no legitimate one-link file", {
  skip: process.getuid?.() === 0 ? false : "needs root to mount",
}, () => {
  for (const [label, rootPath, prefix] of [
    ["a root folder", () => root, () => ""],
    ['"/" as the root', () => "/", () => `${root.slice(1)}/`],
  ] as const) {
    it(`reads every case under ${label}`, async () => {
      assert.ok(expected.size >= 8, `too few mounts worked here: ${[...expected.keys()].join(", ")}`);
      const sandbox = await createSandbox([{ path: rootPath(), readOnly: true }]);
      for (const [name, text] of expected) {
        const opened = await sandbox.openContent(prefix() + name);
        try {
          assert.equal((await readAtMost(opened.handle, 1 << 20)).content.toString(), text, name);
        } finally {
          await opened.handle.close();
        }
      }
    });
  }
});
