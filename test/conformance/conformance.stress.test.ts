// connectrpc's conformance suite (connectconformance, pinned in scripts/install-tools.sh) in server
// mode against toolhost's own hosts (server/server-under-test.ts): the gRPC listener for the gRPC
// protocol (server/grpc.yaml), the HTTP listener for gRPC-Web and Connect (server/grpc-web.yaml,
// server/connect.yaml). Each protocol's known-failing file lists, with the reason, the cases the
// host fails today; the runner fails on any other failure and on a listed case that passes.
// Client mode, against @toolhost/client, is client/conformance.stress.test.ts.
// Stress tier: ~950 calls, a few with the suite's own delays and deadlines, some with 200 KiB messages.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runSuite } from "./run-suite.js";

const here = "test/conformance/server";

describe("connectrpc conformance, server mode, against toolhost's listeners", { timeout: 1_200_000 }, () => {
  for (const protocol of ["grpc", "grpc-web", "connect"] as const) {
    it(`fails no ${protocol} case but those listed with their reason`, async () => {
      const s = await runSuite(
        "server",
        `${here}/${protocol}.yaml`,
        `${here}/${protocol}-known-failing.txt`,
        `${here}/server-under-test.ts`,
      );
      console.log(
        `conformance server ${protocol}: ${s.total} cases, ${s.passed} passed, ${s.failed} failed, ${s.known} known failing (${s.ms} ms)`,
      );
      assert.equal(s.code, 0, `the runner failed:\n${s.failures}`);
      assert.equal(s.failed, 0, s.failures);
      assert.ok(s.passed > 90, `only ${s.passed} cases ran`);
    });
  }
});
