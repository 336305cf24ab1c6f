import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { fsAt } from "../../../src/sandbox/native/fs-at.js";

// Review (native2): neither race test (test/files/search/search-hard-link-unlink-race.stress.test.ts,
// test/sandbox/deleted-hard-link-race.stress.test.ts) fails with the barrier removed (tried: folder_barrier
// and waitForFolderChanges made no-ops, 2 runs each, all green), so a barrier that silently does
// nothing (getdents on an O_PATH descriptor is EBADF, on a file ENOTDIR; both return at once)
// would go unnoticed. This pins the mechanism under strace.
//
// The search's reads (readBatch) take one barrier per run of files of one folder (searchfast3):
// what each file needs is that its count (the fstat of its O_PATH hold) comes before a 1-byte
// getdents64 on its folder's descriptor that reached the directory (EINVAL: too small, or 0: at
// its end), and its name check (the readlinkat of its reopened descriptor) after it. The test
// follows each file's descriptors through the trace and asserts that exact order for every file,
// so a barrier removed, moved before a count or after a name check, or made on the wrong folder
// fails it.
const src = (p: string): string => JSON.stringify(fileURLToPath(new URL(`../../../src/${p}`, import.meta.url)));
const skip = fsAt === undefined || !existsSync("/usr/bin/strace") ? "needs the addon and strace" : false;

/** Marker descriptors: fdPath(N) of these shows in the trace as readlinkat(_, "N") = -1 ENOENT. */
const markers = { start: 999_991, search: 999_992, end: 999_993, paths: 999_994 };

/** mainThreadCalls joins each call strace split (<unfinished ...> / resumed) and keeps `pid`'s. */
function mainThreadCalls(trace: string, pid: string): string[] {
  const open = new Map<string, string>();
  const calls: string[] = [];
  for (const raw of trace.split("\n")) {
    const m = /^(?:\[pid\s+(\d+)\] )?(.*)$/.exec(raw)!;
    const who = m[1] ?? pid;
    let line = m[2]!;
    if (line.endsWith("<unfinished ...>")) {
      open.set(who, line.slice(0, -"<unfinished ...>".length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed !== null) {
      line = (open.get(who) ?? "") + resumed[1]!;
      open.delete(who);
    }
    if (who === pid) calls.push(line);
  }
  return calls;
}

/**
 * checkEvents turns a stretch of calls into the checks' order: "count NAME" (fstat of the O_PATH
 * hold of NAME), "barrier FD RESULT" (a 1-byte getdents64), "name NAME" (readlinkat of NAME's
 * reopened descriptor through the held /proc/self/fd).
 */
function checkEvents(calls: readonly string[]): string[] {
  const held = new Map<string, string>(); // O_PATH descriptor -> name
  const reopened = new Map<string, string>(); // reading descriptor -> name
  const events: string[] = [];
  for (const call of calls) {
    let m: RegExpExecArray | null;
    if ((m = /^openat\(\d+, "([^"]+)", [A-Z_|]*O_PATH[A-Z_|]*\) = (\d+)/.exec(call))) held.set(m[2]!, m[1]!);
    else if ((m = /^openat\(\d+, "(\d+)", O_RDONLY\|O_NONBLOCK[A-Z_|]*\) = (\d+)/.exec(call)) && held.has(m[1]!))
      reopened.set(m[2]!, held.get(m[1]!)!);
    else if ((m = /^(?:newfstatat|fstat|statx)\((\d+), (?:""|\{)/.exec(call)) && held.has(m[1]!))
      events.push(`count ${held.get(m[1]!)}`);
    else if ((m = /^close\((\d+)\)/.exec(call))) held.delete(m[1]!);
    else if ((m = /^getdents64\((\d+), [^,]+, 1\)\s+= (.*)$/.exec(call)))
      events.push(`barrier ${m[1]} ${/^(0|-1 EINVAL)/.test(m[2]!.trim()) ? "reached" : m[2]!.trim()}`);
    else if ((m = /^readlinkat\(\d+, "(\d+)", "/.exec(call)) && reopened.has(m[1]!)) {
      events.push(`name ${reopened.get(m[1]!)}`);
      reopened.delete(m[1]!);
    }
  }
  return events;
}

describe("the hard-link barrier's getdents", () => {
  it("comes after every file's count and before its name check: once per run of a folder's files in the search's reads, once per read in the sandbox's", {
    skip,
  }, () => {
    const script = `
      import { mkdtempSync, mkdirSync, openSync, writeFileSync } from "node:fs";
      import { tmpdir } from "node:os";
      import path from "node:path";
      import { fsAt, packNeedles } from ${src("sandbox/native/fs-at.ts")};
      import { createSandbox } from ${src("sandbox/create-sandbox.ts")};
      const base = mkdtempSync(path.join(tmpdir(), "barrier-sys-"));
      mkdirSync(path.join(base, "sub"));
      mkdirSync(path.join(base, "sub2"));
      for (const n of ["a", "b", "c"]) writeFileSync(path.join(base, "sub", n), "text " + n);
      writeFileSync(path.join(base, "sub2", "d"), "text d");
      const top = openSync(base, "r");
      const sub = fsAt.openDirAt(top, "sub");
      const sub2 = fsAt.openDirAt(top, "sub2");
      fsAt.listDir(sub);
      fsAt.listDir(sub2);
      const results = new Float64Array(8);
      const sandbox = await createSandbox([{ path: base, readOnly: true }]);
      const folderPaths = [sub, sub, sub, sub2].map((fd) => fsAt.fdPath(fd)).join("\\0");
      fsAt.fdPath(${markers.start});
      fsAt.readBatch(Int32Array.of(sub, sub, sub, sub2), "a\\0b\\0c\\0d", 0, Buffer.alloc(4096), 100, packNeedles([]), results);
      const single = fsAt.readFileAt(sub, "b", Buffer.alloc(4096), 100, new Float64Array(1));
      // Review (searchfast3): the search passes the walk's folder paths (FileList.folderRealPaths);
      // that call must take the same barriers (a barrier skipped only then went unnoticed).
      fsAt.fdPath(${markers.paths});
      const withPaths = new Float64Array(8);
      fsAt.readBatch(Int32Array.of(sub, sub, sub, sub2), "a\\0b\\0c\\0d", 0, Buffer.alloc(4096), 100, packNeedles([]), withPaths, folderPaths);
      fsAt.fdPath(${markers.search});
      const opened = await sandbox.openContent("sub/a");
      await opened.handle.close();
      fsAt.fdPath(${markers.end});
      process.stdout.write(JSON.stringify({ pid: process.pid, sub, sub2, results: [...results], single, withPaths: [...withPaths] }) + "\\n");
    `;
    const run = spawnSync(
      "strace",
      [
        "-f",
        "-qq",
        "-e",
        "trace=openat,newfstatat,fstat,statx,close,getdents64,readlinkat",
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
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as {
      pid: number;
      sub: number;
      sub2: number;
      results: number[];
      single: number;
      withPaths: number[];
    };
    assert.deepEqual(
      out.withPaths,
      [6, 0, 6, 6, 6, 12, 6, 18],
      "the four files were read with their folders' paths given",
    );
    assert.deepEqual(out.results, [6, 0, 6, 6, 6, 12, 6, 18], "the four files were read");
    assert.equal(out.single, 6, "readFileAt read b");
    const calls = mainThreadCalls(run.stderr, String(out.pid));
    const at = (marker: number): number =>
      calls.findIndex((c) => c.startsWith(`readlinkat(`) && c.includes(`"${marker}"`));
    const [start, paths, search, end] = [at(markers.start), at(markers.paths), at(markers.search), at(markers.end)];
    assert.ok(start >= 0 && paths > start && search > paths && end > search, "the markers are in the trace");
    const events = checkEvents(calls.slice(start, paths));
    const folderOf: Record<string, number> = { a: out.sub, b: out.sub, c: out.sub, d: out.sub2 };
    const names = events.filter((e) => e.startsWith("name ")).map((e) => e.slice(5));
    assert.deepEqual(
      names,
      ["a", "b", "c", "d", "b"],
      `every file read had its name checked: ${JSON.stringify(events)}`,
    );
    events.forEach((event, n) => {
      if (!event.startsWith("name ")) return;
      const file = event.slice(5);
      const counted = events.lastIndexOf(`count ${file}`, n);
      assert.ok(counted >= 0, `${file} was counted before its name check: ${JSON.stringify(events)}`);
      assert.ok(
        events.slice(counted + 1, n).includes(`barrier ${folderOf[file]} reached`),
        `a barrier of ${file}'s folder between its count and its name check: ${JSON.stringify(events)}`,
      );
    });
    assert.deepEqual(
      events,
      [
        "count a",
        "count b",
        "count c",
        `barrier ${out.sub} reached`,
        "name a",
        "name b",
        "name c", // readBatch: one run of sub's files
        "count d",
        `barrier ${out.sub2} reached`,
        "name d", // a run of sub2's
        "count b",
        `barrier ${out.sub} reached`,
        "name b", // readFileAt: one file
      ],
      "one barrier per run of a folder's files",
    );
    assert.deepEqual(
      checkEvents(calls.slice(paths, search)),
      [
        "count a",
        "count b",
        "count c",
        `barrier ${out.sub} reached`,
        "name a",
        "name b",
        "name c",
        "count d",
        `barrier ${out.sub2} reached`,
        "name d",
      ],
      "with the folders' paths given (as the search calls it): the same barriers",
    );
    const sandboxBarriers = calls
      .slice(search, end)
      .flatMap((c) => /^getdents64\(\d+, [^,]+, 1\)\s+= (.*)$/.exec(c)?.[1]?.trim() ?? []);
    assert.ok(sandboxBarriers.length >= 1, `the sandbox's read made its barrier: ${JSON.stringify(sandboxBarriers)}`);
    for (const result of sandboxBarriers)
      assert.match(result, /^(0|-1 EINVAL.*)$/, `a barrier that reached a folder, not ${result}`);
  });
});
