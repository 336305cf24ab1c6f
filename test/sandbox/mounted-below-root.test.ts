// A filesystem mounted below a local root (a stand-in for NFS or FUSE, where a hung server would
// block the event loop) is reached through the thread pool: the target folder of a write is not
// opened with openSync there, and a walk makes no synchronous lstat on it (mount-points.ts).
// Mounts a tmpfs, so it needs CAP_SYS_ADMIN; skipped otherwise. (Found by review: both failed
// before the mount table was consulted.)
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs, { fstatSync, lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { openTargetDirectory } from "../../src/files/write/target-directory.js";
import { listDirectory } from "../../src/files/list-directory.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { parseMountInfo, reloadMountPoints } from "../../src/sandbox/mount-points.js";
import { entryLookup } from "../../src/sandbox/lstat-entry.js";
import { walkLinks } from "../../src/sandbox/resolve-in-roots.js";

const root = mkdtempSync(path.join(os.tmpdir(), "review-e3-root-"));
const mount = path.join(root, "mounted");
let mounted = false;

before(() => {
  mkdirSync(mount);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "none", mount], { stdio: "ignore" });
    mounted = true;
    mkdirSync(path.join(mount, "deeper"));
    reloadMountPoints(); // mounted after start: the table is read again every 5 s otherwise
  } catch {
    mounted = false;
  }
});

after(() => {
  if (mounted) execFileSync("umount", [mount], { stdio: "ignore" });
  fs.rmSync(root, { recursive: true, force: true });
});

describe("a filesystem mounted below a local root (stand-in for NFS/FUSE: a hung server would block the loop)", () => {
  it("opens the target folder through the thread pool when the folder is not on the root's device", async (t) => {
    if (!mounted) return t.skip("cannot mount tmpfs here");
    const sandbox = await createSandbox([{ path: root, readOnly: false }]);
    const rootDevice = sandbox.roots[0]!.localDevice;
    assert.notEqual(rootDevice, undefined, "the scratch root must be on a local filesystem");
    assert.notEqual(lstatSync(mount).dev, rootDevice, "the mount is another device");
    const inPlace: (boolean | undefined)[] = [];
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      openDirectory: (dir, here) => (inPlace.push(here), nodeFsOps.openDirectory(dir, here)),
    };
    const target = await openTargetDirectory(ops, path.join(mount, "deeper"), {
      roots: sandbox.roots,
      displayPath: "mounted/deeper",
    });
    try {
      assert.equal(target.local, false);
      assert.notEqual(fstatSync(target.handle.fd).dev, rootDevice);
      assert.deepEqual(inPlace, [false], "a folder on another device must not be opened with openSync");
    } finally {
      await target.close();
    }
  });

  it("makes no synchronous lstat of an entry on another device while walking", async (t) => {
    if (!mounted) return t.skip("cannot mount tmpfs here");
    const rootDevice = lstatSync(root).dev;
    const seen: Array<{ file: string; dev: number }> = [];
    const original = fs.lstatSync;
    (fs as { lstatSync: unknown }).lstatSync = (file: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stats = original(file, options as never) as fs.Stats;
      seen.push({ file: String(file), dev: stats.dev });
      return stats;
    };
    syncBuiltinESMExports();
    try {
      const walk = await walkLinks(root, ["mounted", "deeper", "x.txt"], rootDevice);
      assert.equal(walk.realPath, path.join(mount, "deeper", "x.txt"));
    } finally {
      (fs as { lstatSync: unknown }).lstatSync = original;
      syncBuiltinESMExports();
    }
    // The mount point itself is not lstat'ed on the event loop either: its inode is the mounted
    // filesystem's root (on NFS, a GETATTR to the server).
    assert.deepEqual(
      seen.filter((s) => s.dev !== rootDevice),
      [],
    );
  });
});

describe("a listing of a local root with a filesystem mounted below it", () => {
  it("makes no synchronous lstat of the mount point or of anything on it", async (t) => {
    if (!mounted) return t.skip("cannot mount tmpfs here");
    fs.writeFileSync(path.join(root, "local.txt"), "on the root's own filesystem");
    const sandbox = await createSandbox([{ path: root, readOnly: false }]);
    const rootDevice = lstatSync(root).dev;
    const seen: Array<{ file: string; dev: number }> = [];
    const original = fs.lstatSync;
    (fs as { lstatSync: unknown }).lstatSync = (file: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stats = original(file, options as never) as fs.Stats;
      seen.push({ file: String(file), dev: stats.dev });
      return stats;
    };
    syncBuiltinESMExports();
    // With the native addon, an entry is looked up in place by fstatat on its folder's descriptor.
    const lstatAt = entryLookup.lstatAt;
    if (lstatAt !== undefined) {
      entryLookup.lstatAt = (dirFd, name, out) => {
        const code = lstatAt(dirFd, name, out);
        if (code === 0) seen.push({ file: `/${name}`, dev: original(`/proc/self/fd/${dirFd}/${name}`).dev });
        return code;
      };
    }
    let listed: string[];
    try {
      listed = (await listDirectory(sandbox, { path: "", recursive: true })).entries.map((e) => e.path);
    } finally {
      (fs as { lstatSync: unknown }).lstatSync = original;
      syncBuiltinESMExports();
      entryLookup.lstatAt = lstatAt;
    }
    assert.ok(listed.includes("mounted/deeper"), listed.join(","));
    assert.ok(
      seen.some((s) => s.file.endsWith("/local.txt")),
      "entries on the root's own filesystem are looked up in place",
    );
    assert.deepEqual(
      seen.filter((s) => s.dev !== rootDevice),
      [],
    );
  });
});

describe("the mount table", () => {
  it("takes the mount points out of /proc/self/mountinfo, with the kernel's escapes decoded", () => {
    const text = [
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
      "36 22 0:33 / /mnt/with\\040space rw shared:2 - tmpfs none rw",
      "37 22 0:34 / /srv/nfs rw - nfs4 server:/export rw",
      "",
    ].join("\n");
    assert.deepEqual([...parseMountInfo(text)], ["/", "/mnt/with space", "/srv/nfs"]);
  });
});
