import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * runWithoutAddon runs the named test files of this folder again in a child test runner with
 * TOOLHOST_NATIVE=0, so the JavaScript path every install without the addon falls back to keeps
 * every guarantee too (without the addon both runs take the JavaScript path), and fails with the
 * child's failed tests. `timeoutMs` is a hang guard.
 */
export function runWithoutAddon(names: readonly string[], timeoutMs: number): void {
  const suites = names.map((name) => fileURLToPath(new URL(name, import.meta.url)));
  assert.ok(
    suites.every((file) => existsSync(file)),
    `a suite is missing: ${suites.filter((file) => !existsSync(file)).join(", ")}`,
  );
  // NODE_TEST_CONTEXT left out: with it the child would report to this runner, not print TAP.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-reporter=tap", "--test-concurrency=1", ...suites],
    {
      env: { ...env, TOOLHOST_NATIVE: "0" },
      encoding: "utf8",
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
    },
  );
  const summary = run.stdout.split("\n").filter((line) => /^# (tests|pass|fail|cancelled)/.test(line));
  assert.equal(
    run.status,
    0,
    `the fallback run failed:\n${failures(run.stdout)}\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-2000)}`,
  );
  assert.ok(
    summary.some((line) => /^# pass [1-9]/.test(line)),
    `nothing ran: ${summary.join(", ")}`,
  );
}

/** failures is every failed test of a TAP report with the lines that explain it (the tail alone missed them). */
function failures(tap: string): string {
  const lines = tap.split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (/^\s*not ok /.test(line)) out.push(...lines.slice(Math.max(0, i - 2), i + 25));
  });
  return out.join("\n").slice(0, 20_000);
}
