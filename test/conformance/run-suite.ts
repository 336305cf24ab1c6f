// runSuite runs connectrpc's conformance runner (connectconformance, pinned in
// scripts/install-tools.sh) once, in client or server mode, and reads its closing summary. Used by
// the conformance tests of the stress tier (client/ and server/ here).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../support/run-command.js";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
const runner = path.join(repo, ".tools/bin/connectconformance");

/** SuiteRun is one run's summary: cases in all, passed, failed against expectation, failed as listed. */
export interface SuiteRun {
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly known: number;
  readonly code: number;
  readonly ms: number;
  /** The runner's FAILED lines, or the tail of its output when it printed none. */
  readonly failures: string;
}

/**
 * runSuite runs the suite with a config (`--conf`), an optional known-failing file, optional
 * known-flaky patterns (cases allowed, not required, to fail; still run and reported) and the
 * command under test (run by this Node with tsx), from the repository root.
 */
export async function runSuite(
  mode: "client" | "server",
  conf: string,
  knownFailing: string | undefined,
  underTest: string,
  knownFlaky: readonly string[] = [],
): Promise<SuiteRun> {
  assert.ok(existsSync(runner), "connectconformance is missing; run scripts/install-tools.sh");
  const known = knownFailing === undefined ? [] : ["--known-failing", `@${knownFailing}`];
  const flaky = knownFlaky.flatMap((pattern) => ["--known-flaky", pattern]);
  // Bounded parallelism (the runner's defaults are 8 RPCs and 4 servers at once): on a loaded
  // 2-core machine the defaults starve the process under test and the suite times out. The
  // runner refuses -p in client mode; --max-servers bounds its reference servers there.
  const bounded = mode === "server" ? ["-p", "2", "--max-servers", "1"] : ["--max-servers", "1"];
  const args = [
    "--mode",
    mode,
    ...bounded,
    "--conf",
    conf,
    ...known,
    ...flaky,
    "--",
    process.execPath,
    "--import",
    "tsx",
    underTest,
  ];
  const run = await runCommand(runner, args, { cwd: repo, timeoutMs: 900_000, allowFailure: true });
  const output = `${run.stdout}\n${run.stderr}`;
  const total = /Total cases: (\d+)/.exec(output);
  const counts = /(\d+) passed, (\d+) failed/.exec(output);
  const failedAsExpected = /Another (\d+) failed as expected/.exec(output);
  assert.ok(total && counts, `the runner printed no summary:\n${output.slice(-3000)}`);
  const failures = output.split("\n").filter((l) => l.startsWith("FAILED:"));
  return {
    total: Number(total[1]),
    passed: Number(counts[1]),
    failed: Number(counts[2]),
    known: Number(failedAsExpected?.[1] ?? 0),
    code: run.code,
    ms: run.ms,
    failures: failures.length > 0 ? failures.join("\n") : output.slice(-3000),
  };
}
