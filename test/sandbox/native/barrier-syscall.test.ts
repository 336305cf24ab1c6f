import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { fsAt } from "../../../src/sandbox/native/fs-at.js";

// Review (native2): neither race test (test/files/search/search-hard-link-unlink-race.test.ts,
// test/sandbox/deleted-hard-link-race.test.ts) fails with the barrier removed (tried: folder_barrier
// and waitForFolderChanges made no-ops, 2 runs each, all green), so a barrier that silently does
// nothing (getdents on an O_PATH descriptor is EBADF, on a file ENOTDIR; both return at once)
// would go unnoticed. This pins the mechanism: every read makes its 1-byte getdents64 on a folder
// descriptor, and the kernel reached the directory (EINVAL: too small, or 0: at its end).
const src = (p: string): string => JSON.stringify(fileURLToPath(new URL(`../../../src/${p}`, import.meta.url)));
const skip = fsAt === undefined || !existsSync("/usr/bin/strace") ? "needs the addon and strace" : false;

describe("the hard-link barrier's getdents", () => {
  it("runs, on a folder, for each file the search's reads and the sandbox's reads accept", { skip }, () => {
    const script = `
      import { mkdtempSync, mkdirSync, openSync, writeFileSync } from "node:fs";
      import { tmpdir } from "node:os";
      import path from "node:path";
      import { fsAt, packNeedles } from ${src("sandbox/native/fs-at.ts")};
      import { createSandbox } from ${src("sandbox/create-sandbox.ts")};
      const base = mkdtempSync(path.join(tmpdir(), "barrier-sys-"));
      mkdirSync(path.join(base, "sub"));
      for (const n of ["a", "b", "c"]) writeFileSync(path.join(base, "sub", n), "text " + n);
      const top = openSync(base, "r");
      const sub = fsAt.openDirAt(top, "sub");
      fsAt.listDir(sub);
      const results = new Float64Array(6);
      fsAt.readBatch(Int32Array.of(sub, sub, sub), "a\\0b\\0c", 0, Buffer.alloc(4096), 100, packNeedles([]), results);
      process.stdout.write("search " + JSON.stringify([...results]) + "\\n");
      const sandbox = await createSandbox([{ path: base, readOnly: true }]);
      const opened = await sandbox.openForRead("sub/a");
      await opened.handle.close();
      process.stdout.write("sandbox ok\\n");
    `;
    const run = spawnSync("strace", ["-f", "-qq", "-e", "trace=getdents64", "-e", "signal=none", process.execPath, "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000, maxBuffer: 1 << 26 });
    assert.equal(run.status, 0, run.stderr.slice(-2000));
    assert.match(run.stdout, /search \[6,0,6,6,6,12\]/, "the three files were read");
    assert.match(run.stdout, /sandbox ok/);
    const barriers = [...run.stderr.matchAll(/getdents64\((\d+), [^,]+, 1\)\s+= (.*)/g)].map((m) => m[2]!.trim());
    assert.ok(barriers.length >= 4, `one barrier per file read (3 by the search, 1 by the sandbox): ${JSON.stringify(barriers)}`);
    for (const result of barriers) assert.match(result, /^(0|-1 EINVAL.*)$/, `a barrier that reached a folder, not ${result}`);
  });
});
