// connectrpc's conformance suite (connectconformance, pinned in scripts/install-tools.sh) in client
// mode against @toolhost/client (client-under-test.ts), once per protocol createClient speaks:
// gRPC (grpc.yaml) and Connect (connect.yaml, with the cases connect-node's own transport fails
// listed in connect-known-failing.txt, with the reason). The runner starts its reference servers
// (connect-go and grpc-go) on loopback and fails when a case fails or a known failure passes.
// Stress tier: ~800 calls with 200 ms and 2 s deadlines, a minute of work on a 2-core machine.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../support/run-command.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const here = "test/conformance/client";
const runner = path.join(repo, ".tools/bin/connectconformance");

/** summary reads the runner's closing lines: how many cases, passed, failed, and failed as expected. */
function summary(output: string): { total: number; passed: number; failed: number; known: number } {
  const total = /Total cases: (\d+)/.exec(output);
  const counts = /(\d+) passed, (\d+) failed/.exec(output);
  const known = /Another (\d+) failed as expected/.exec(output);
  assert.ok(total && counts, `the runner printed no summary:\n${output.slice(-3000)}`);
  return { total: Number(total[1]), passed: Number(counts[1]), failed: Number(counts[2]), known: Number(known?.[1] ?? 0) };
}

describe("connectrpc conformance, client mode, against @toolhost/client", { timeout: 1_200_000 }, () => {
  for (const protocol of ["grpc", "connect"] as const) {
    it(`passes every ${protocol} case (known failures listed with their reason)`, async () => {
      assert.ok(existsSync(runner), "connectconformance is missing; run scripts/install-tools.sh");
      const knownFailing = protocol === "connect" ? ["--known-failing", `@${here}/connect-known-failing.txt`] : [];
      const args = ["--mode", "client", "--conf", `${here}/${protocol}.yaml`, ...knownFailing, "--", process.execPath, "--import", "tsx", `${here}/client-under-test.ts`];
      const run = await runCommand(runner, args, { cwd: repo, timeoutMs: 900_000, allowFailure: true });
      const output = `${run.stdout}\n${run.stderr}`;
      const s = summary(output);
      console.log(`conformance ${protocol}: ${s.total} cases, ${s.passed} passed, ${s.failed} failed, ${s.known} known failing (${run.ms} ms)`);
      const failures = output.split("\n").filter((l) => l.startsWith("FAILED:"));
      assert.equal(run.code, 0, `the runner failed:\n${failures.join("\n") || output.slice(-3000)}`);
      assert.equal(s.failed, 0, failures.join("\n"));
      assert.ok(s.passed > 100, `only ${s.passed} cases ran`);
    });
  }
});
