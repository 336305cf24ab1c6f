import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

// Review (searchfast3): the AVX2 newline counter and pair search compiled with
// -fsanitize=address,undefined and fuzzed against a byte loop and memmem (the addon itself cannot
// be loaded into a Node that was not built with ASan, so the C is included into a harness).
const source = fileURLToPath(new URL("../../../native/fs-at/fs-at.c", import.meta.url));
const harness = fileURLToPath(new URL("asan/fs-at-scan-harness.c", import.meta.url));
const include = ["/usr/include/node", path.join(path.dirname(process.execPath), "..", "include", "node")].find((dir) =>
  existsSync(path.join(dir, "node_api.h")),
);
const cc = process.env.CC ?? "cc";
const probe = spawnSync(cc, ["--version"], { encoding: "utf8" });
const skip =
  process.arch !== "x64"
    ? "x86-64 only (AVX2)"
    : include === undefined
      ? "node_api.h not found"
      : probe.status !== 0
        ? `${cc} not found`
        : false;

describe("fs-at's AVX2 scans under AddressSanitizer", () => {
  it("count newlines and find texts exactly as a byte loop and memmem, never reading past a buffer", {
    skip,
    timeout: 600_000,
  }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fs-at-asan-"));
    const flags = [
      "-O1",
      "-g",
      "-fsanitize=address,undefined",
      "-fno-sanitize-recover=all",
      "-fno-omit-frame-pointer",
      "-DNODE_GYP_MODULE_NAME=fs_at",
      `-DFS_AT_SOURCE="${source}"`,
      "-DTRIALS=100000",
      `-I${include}`,
    ];
    const object = path.join(dir, "harness.o");
    const compiled = spawnSync(cc, [...flags, "-c", harness, "-o", object], { encoding: "utf8" });
    if (compiled.status !== 0 && /sanitize|asan/i.test(compiled.stderr)) return; // no ASan runtime here: nothing to run
    assert.equal(compiled.status, 0, compiled.stderr);
    // The N-API functions the addon calls, stubbed: the harness never calls them.
    const undefinedSymbols = spawnSync("nm", ["-u", object], { encoding: "utf8" })
      .stdout.split("\n")
      .map((l) => l.trim().split(/\s+/).at(-1) ?? "")
      .filter((s) => s.startsWith("napi_"));
    const stubs = path.join(dir, "stubs.c");
    writeFileSync(stubs, undefinedSymbols.map((s) => `void ${s}(void) {}\n`).join(""));
    const binary = path.join(dir, "harness");
    const linked = spawnSync(cc, ["-fsanitize=address,undefined", object, stubs, "-o", binary], { encoding: "utf8" });
    if (linked.status !== 0 && /asan|ubsan|sanitizer/i.test(linked.stderr)) return; // no ASan libraries: nothing to run
    assert.equal(linked.status, 0, linked.stderr);
    const run = spawnSync(binary, [], { encoding: "utf8", timeout: 300_000 }); // a hang guard
    if (run.status === 2) return; // no AVX2 on this CPU: the scans are memchr/memmem
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr.slice(-3000)}`);
    assert.match(run.stdout, /^trials [1-9]\d* fails 0$/m);
  });
});
