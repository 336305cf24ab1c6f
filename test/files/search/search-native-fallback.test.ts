import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

/**
 * The search suites and race tests run with the native addon when it is built (the default run);
 * this file runs them again with TOOLHOST_NATIVE=0, so the JavaScript path every install falls
 * back to keeps every guarantee too. Without the addon both runs take the JavaScript path.
 */
const suites = [
  "search-files.test.ts",
  "search-filters.test.ts",
  "search-prefilter.test.ts",
  "search-match-lines.test.ts",
  "search-race.test.ts",
  "search-fifo-swap-race.test.ts",
  "search-hard-link-unlink-race.test.ts",
  "search-deleted-name-race.test.ts",
  "search-ignore-fifo.test.ts",
  "search-walk-bounds.test.ts",
  "search-growing-file.test.ts",
].map((name) => fileURLToPath(new URL(name, import.meta.url)));

describe("SearchFiles without the native addon (TOOLHOST_NATIVE=0)", () => {
  it("passes the search suites and race tests on the JavaScript path", { timeout: 600_000 }, () => {
    assert.ok(suites.every((file) => existsSync(file)));
    // NODE_TEST_CONTEXT left out: with it the child would report to this runner, not print TAP.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", "--test-concurrency=1", ...suites], {
      env: { ...env, TOOLHOST_NATIVE: "0" },
      encoding: "utf8",
      timeout: 590_000,
      maxBuffer: 64 << 20,
    });
    const summary = run.stdout.split("\n").filter((line) => /^# (tests|pass|fail|cancelled)/.test(line));
    assert.equal(run.status, 0, `the fallback run failed:\n${failures(run.stdout)}\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-2000)}`);
    assert.ok(summary.some((line) => /^# pass [1-9]/.test(line)), `nothing ran: ${summary.join(", ")}`);
  });
});

/** failures is every failed test of a TAP report with the lines that explain it (the tail alone missed them). */
function failures(tap: string): string {
  const lines = tap.split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (/^\s*not ok /.test(line)) out.push(...lines.slice(Math.max(0, i - 2), i + 25));
  });
  return out.join("\n").slice(0, 20_000);
}
