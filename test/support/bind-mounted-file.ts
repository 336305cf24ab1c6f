import { execFileSync, spawnSync } from "node:child_process";
import fs, { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { reloadMountPoints } from "../../src/sandbox/mount-points.js";

/** BindMountedFile is a file ("alpha\n", at `source`) bind-mounted over a name inside `root`. */
export interface BindMountedFile {
  readonly root: string;
  readonly source: string;
  /** Where the mount is now (a test that moves it says so, for the unmount after it). */
  at: string | undefined;
}

/**
 * bindMountedFile sets up, before the file's tests, a root with `name` (a path below it) and a file
 * bind-mounted over it (a stand-in for one from NFS or FUSE), and the mount table reloaded; after
 * them it unmounts it lazily (whatever a test left open) and removes everything. `at` stays
 * undefined where mounting needs a privilege this machine lacks: the tests then skip.
 */
export function bindMountedFile(prefix: string, name = "mounted.txt"): BindMountedFile {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const fixture: BindMountedFile = {
    root: path.join(dir, "root"),
    source: path.join(dir, "source.txt"),
    at: undefined,
  };
  before(() => {
    const target = path.join(fixture.root, name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(fixture.source, "alpha\n");
    writeFileSync(target, "placeholder\n");
    try {
      execFileSync("mount", ["--bind", fixture.source, target], { stdio: "ignore" });
      fixture.at = target;
      reloadMountPoints();
    } catch {
      fixture.at = undefined;
    }
  });
  after(() => {
    if (fixture.at !== undefined) spawnSync("umount", ["-l", fixture.at], { stdio: "ignore" });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return fixture;
}
