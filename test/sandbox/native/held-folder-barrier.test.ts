import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { fsAt } from "../../../src/sandbox/native/fs-at.js";

// The content path's one-name check for an entry of a folder the caller holds (namedInHeldFolder,
// used by openContentAt: a write's commit, copies, moves, guarded deletes, ignore files). As
// barrier-syscall.test.ts says of the others, no race test notices a barrier that does nothing, so
// this pins the order under strace: the reopened descriptor's count (its fstat), then a 1-byte
// getdents64 on a descriptor opened from /proc/self/fd/FOLDER (the held folder itself, not a path
// looked up again) that reached the folder, then the name check (readlink of the reopened
// descriptor) against the folder's path read after the barrier.
const src = (p: string): string => JSON.stringify(fileURLToPath(new URL(`../../../src/${p}`, import.meta.url)));
const skip = fsAt === undefined || !existsSync("/usr/bin/strace") ? "needs the addon and strace" : false;
const markers = { start: 999_981, end: 999_982 };

describe("the held folder's barrier in openContentAt", () => {
  it("comes after the reopened file's count and before its name check, on the held folder", { skip }, () => {
    const script = `
      import { mkdtempSync, mkdirSync, openSync, writeFileSync } from "node:fs";
      import { tmpdir } from "node:os";
      import path from "node:path";
      import { fsAt } from ${src("sandbox/native/fs-at.ts")};
      import { createSandbox } from ${src("sandbox/create-sandbox.ts")};
      const base = mkdtempSync(path.join(tmpdir(), "held-barrier-"));
      mkdirSync(path.join(base, "sub"));
      writeFileSync(path.join(base, "sub", "a"), "text a");
      const sandbox = await createSandbox([{ path: base, readOnly: true }]);
      const folder = openSync(path.join(base, "sub"), "r");
      fsAt.fdPath(${markers.start});
      const opened = await sandbox.openContentAt({ fd: folder }, "a", "sub/a", true);
      const fd = opened.handle.fd;
      await opened.handle.close();
      fsAt.fdPath(${markers.end});
      process.stdout.write(JSON.stringify({ pid: process.pid, folder, fd }) + "\\n");
    `;
    const run = spawnSync(
      "strace",
      [
        "-f",
        "-qq",
        "-e",
        "trace=openat,newfstatat,fstat,statx,close,getdents64,readlinkat,readlink",
        "-e",
        "signal=none",
        process.execPath,
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8", timeout: 60_000, maxBuffer: 1 << 26 },
    );
    assert.equal(run.status, 0, run.stderr.slice(-2000));
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { pid: number; folder: number; fd: number };
    const calls = run.stderr
      .split("\n")
      .filter((line) => !line.startsWith("[pid ") || new RegExp(`^\\[pid\\s+${out.pid}\\]`).test(line))
      .map((line) => line.replace(/^\[pid\s+\d+\] /, ""));
    const at = (marker: number): number =>
      calls.findIndex((c) => c.startsWith("readlinkat(") && c.includes(`"${marker}"`));
    const between = calls.slice(at(markers.start), at(markers.end));
    assert.ok(between.length > 0, "the markers are in the trace");
    const events: string[] = [];
    let barrierFd: string | undefined;
    for (const call of between) {
      let m: RegExpExecArray | null;
      if (
        (m = /^openat\(AT_FDCWD, "\/proc\/self\/fd\/(\d+)", O_RDONLY\|O_NONBLOCK[A-Z_|]*\) = (\d+)/.exec(call)) &&
        m[2] === String(out.fd)
      )
        events.push("reopen");
      else if ((m = /^(?:newfstatat|fstat|statx)\((\d+), /.exec(call)) && m[1] === String(out.fd)) events.push("count");
      else if (
        (m = /^openat\(AT_FDCWD, "\/proc\/self\/fd\/(\d+)", O_RDONLY[A-Z_|]*O_DIRECTORY[A-Z_|]*\) = (\d+)/.exec(
          call,
        )) &&
        m[1] === String(out.folder)
      )
        barrierFd = m[2];
      else if ((m = /^getdents64\((\d+), [^,]+, 1\)\s+= (.*)$/.exec(call)) && m[1] === barrierFd)
        events.push(/^(0|-1 EINVAL)/.test(m[2]!.trim()) ? "barrier on the held folder" : `barrier ${m[2]}`);
      else if ((m = /^readlink(?:at)?\((?:AT_FDCWD, )?"\/proc\/self\/fd\/(\d+)"/.exec(call)) && m[1] === String(out.fd))
        events.push("name");
    }
    const barrier = events.indexOf("barrier on the held folder");
    assert.ok(
      barrier > events.indexOf("count") && events.indexOf("count") > events.indexOf("reopen"),
      `count, then the barrier: ${JSON.stringify(events)}`,
    );
    assert.equal(
      events.lastIndexOf("name") > barrier,
      true,
      `a name check after the barrier: ${JSON.stringify(events)}`,
    );
  });
});
