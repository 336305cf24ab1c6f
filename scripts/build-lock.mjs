// withBuildLock runs a build of dist/ while holding dist.lock, so that two builds (two test files,
// or a test and `npm start`) never write the same tree at once. The lock file holds its owner's
// pid and is made whole by a hard link, so a waiter never sees it half written; a lock whose
// owner died is taken over.
import { linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const pause = new Int32Array(new SharedArrayBuffer(4));

/** alive says whether a process with this pid still runs. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** withBuildLock calls `build` once dist.lock under `root` is this process's, and releases it after. */
export function withBuildLock(root, build) {
  const lock = join(root, "dist.lock");
  const mine = `${lock}.${process.pid}`;
  writeFileSync(mine, `${process.pid}\n`);
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        break;
      } catch (err) {
        if (err.code !== "EEXIST") throw err;
      }
      let owner;
      try {
        owner = Number(readFileSync(lock, "utf8"));
      } catch {
        continue; // released meanwhile
      }
      if (!alive(owner)) {
        rmSync(lock, { force: true });
        continue;
      }
      Atomics.wait(pause, 0, 0, 100); // the owner is building: look again shortly
    }
  } finally {
    unlinkSync(mine);
  }
  try {
    return build();
  } finally {
    unlinkSync(lock);
  }
}
