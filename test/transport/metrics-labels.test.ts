// Metrics labels come only from fixed sets: the hosted methods (anything else is one `unknown`
// series), gRPC code names and the error catalog's reasons, on both listeners, so requests to
// made-up methods, authenticated or not, add no series (issue 27, finding 8).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { hostedMethodPaths } from "../../src/transport/hosted-methods.js";
import { reflectionMethodPaths } from "../../src/transport/reflection-method-paths.js";
import { createServerMetrics, unknownMethod } from "../../src/transport/observability/server-metrics.js";
import { RawGrpcConnection } from "../support/raw-grpc.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

const token = "th_metrics-label-test-token-000000000000000";
const hosted = hostedMethodPaths([FileTools, SkillCatalog, Tools]);

/** Series is one sample line of a toolhost_rpc_* metric: its name and labels. */
interface Series {
  readonly line: string;
  readonly method: string | undefined;
  readonly value: number;
}

/** rpcSeries parses the toolhost_rpc_* sample lines of a Prometheus text. */
function rpcSeries(text: string): Series[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("toolhost_rpc_"))
    .map((line) => ({
      line,
      method: /[{,]method="([^"]*)"/.exec(line)?.[1],
      value: Number(line.slice(line.lastIndexOf(" ") + 1)),
    }));
}

describe("metrics labels", () => {
  it("are the hosted methods' paths, health's and reflection's among them", () => {
    assert.ok(hosted.has("/toolhost.files.v1.FileTools/ReadFile"));
    assert.ok(hosted.has("/toolhost.tools.v1.Tools/CallTool"));
    assert.ok(hosted.has("/grpc.health.v1.Health/Check"));
    for (const path of reflectionMethodPaths) assert.ok(hosted.has(path));
    assert.equal(hosted.has(unknownMethod), false);
  });

  it("map a path the server does not host to `unknown`, and a reason outside the catalog to none", async () => {
    const metrics = createServerMetrics(() => ({ skills: 0, errors: 0 }), hosted);
    const forged = new ConnectError("forged", 5, undefined, [
      { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "MADE_UP_REASON", domain: "toolhost" }) },
    ]);
    for (let i = 0; i < 50; i++) {
      const method = `/made.up.v${i}.Service/Method${i}`;
      metrics.callStarted(method);
      metrics.callEnded({
        method,
        peer: "p",
        code: 99,
        durationMs: 1,
        bytesIn: 1,
        bytesOut: 1,
        requestId: "r",
        error: forged,
      });
    }
    const series = rpcSeries(await metrics.registry.metrics());
    assert.deepEqual([...new Set(series.map((s) => s.method))], [unknownMethod]);
    const calls = series.filter((s) => s.line.startsWith("toolhost_rpc_calls_total{"));
    assert.deepEqual(
      calls.map((s) => s.line),
      ['toolhost_rpc_calls_total{method="unknown",code="UNKNOWN",reason=""} 50'],
    );
  });
});

describe("requests to made-up methods on both listeners", { timeout: 120_000 }, () => {
  let server: TestServer;
  let grpc: RawGrpcConnection;

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolhost-labels-"));
    const tokensFile = join(dir, "tokens.yaml");
    await writeTokensFile(tokensFile, [{ id: "labels", token, scope: { tier: "read" } }]);
    server = await startTestServer({ http: true, metrics: true, tokensFile });
    grpc = await RawGrpcConnection.open(server.address);
  });
  after(async () => {
    grpc?.close();
    await server?.close();
  });

  const scrape = async () => rpcSeries(await (await fetch(`http://${server.metricsAddress}/metrics`)).text());

  /** junk sends `count` requests to made-up paths, half with the token and half without, on both listeners. */
  async function junk(round: string, count: number): Promise<void> {
    const paths = (i: number) => [
      `/made.up.v1.Service/Method${round}${i}`,
      `/toolhost.files.v1.FileTools/Nope${round}${i}`,
      `/${round}-${i}`,
      `/x/${"y".repeat(i % 200)}`,
    ];
    const batch = 50;
    for (let at = 0; at < count; at += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, count - at) }, async (_, k) => {
          const i = at + k;
          const path = paths(i)[i % 4]!;
          const headers: Record<string, string> = {
            "content-type": "application/json",
            ...(i % 2 === 0 ? { authorization: `Bearer ${token}` } : {}),
          };
          if (i % 4 < 2) {
            const res = await fetch(`http://${server.httpAddress}${path}`, { method: "POST", headers, body: "{}" });
            await res.arrayBuffer();
            assert.equal(res.status, i % 2 === 0 ? 404 : 401, `${path}: HTTP ${res.status}`);
          } else {
            const stream = grpc.start(path, { headers: i % 2 === 0 ? { authorization: `Bearer ${token}` } : {} });
            stream.end();
            const status = await new Promise<string | undefined>((resolve) => {
              stream.on("response", (h) => h["grpc-status"] !== undefined && resolve(String(h["grpc-status"])));
              stream.on("trailers", (t) => resolve(String(t["grpc-status"])));
              stream.on("close", () => resolve(undefined));
              stream.resume();
            });
            assert.equal(status, "12", `${path}: grpc-status ${status} (UNIMPLEMENTED)`);
          }
        }),
      );
    }
  }

  it("leave one `unknown` method series, which does not grow with the number of requests", async () => {
    // One reflection call without a token: a hosted method refused at the gate keeps its own label.
    const reflection = await grpc.call(reflectionMethodPaths[0]!, Buffer.alloc(0));
    assert.equal(reflection.grpcStatus, 16);
    await junk("warm", 40);
    const unauthenticated =
      'toolhost_rpc_calls_total{method="unknown",code="UNAUTHENTICATED",reason="UNAUTHENTICATED"}';
    const warm = await waitFor("the warm-up's 10 refusals in the metrics", async () => {
      const series = await scrape();
      return series.find((s) => s.line.startsWith(unauthenticated))?.value === 10 && series;
    });
    // 400 distinct made-up paths: enough to show that no series is made per path.
    await junk("flood", 400);
    const flooded = await waitFor("the flood's refusals in the metrics", async () => {
      const series = await scrape();
      return series.find((s) => s.line.startsWith(unauthenticated))?.value === 10 + 100 && series;
    });
    const methods = new Set(flooded.map((s) => s.method).filter((m) => m !== undefined));
    assert.deepEqual(
      [...methods].filter((m) => !hosted.has(m)),
      [unknownMethod],
      "one method label outside the hosted set",
    );
    assert.ok(methods.has(reflectionMethodPaths[0]!), "the reflection call is counted under its own method");
    assert.equal(flooded.length, warm.length, `series before the flood: ${warm.length}, after: ${flooded.length}`);
    assert.deepEqual(
      flooded
        .filter((s) => s.method === unknownMethod && s.line.startsWith("toolhost_rpc_calls_total{"))
        .map((s) => s.line),
      [`${unauthenticated} 110`],
      "authenticated requests to made-up paths are not calls, and add nothing",
    );
  });
});
