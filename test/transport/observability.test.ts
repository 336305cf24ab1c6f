import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

type LogLine = Record<string, unknown>;

/** rpcLine waits (bounded) for the server's "rpc" log line of a request id. */
async function rpcLine(server: SpawnedServer, requestId: string): Promise<LogLine> {
  for (let i = 0; i < 100; i++) {
    const line = server.lines
      .map((l) => JSON.parse(l) as LogLine)
      .find((r) => r["request_id"] === requestId && (r["msg"] === "rpc" || r["msg"] === "rpc failed"));
    if (line) return line;
    await sleep(20);
  }
  throw new Error(`no rpc log line with request_id ${requestId}`);
}

async function scrape(address: string, path = "/metrics"): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://${address}${path}`);
  return { status: res.status, text: await res.text() };
}

/** sample reads one sample's value from the Prometheus text, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`${name}{`) && labels.split(",").every((kv) => l.includes(kv)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

/** echoedRequestId is a client interceptor that hands `seen` the x-request-id of each answer or error (null first). */
function echoedRequestId(seen: (id: string | null) => void): Interceptor {
  return (next) => async (req) => {
    seen(null);
    try {
      const res = await next(req);
      seen(res.header.get("x-request-id"));
      return res;
    } catch (err) {
      seen(ConnectError.from(err).metadata.get("x-request-id"));
      throw err;
    }
  };
}

describe("observability: log lines and Prometheus metrics", { timeout: 60_000 }, () => {
  let dir: string;
  let server: SpawnedServer;
  let metrics: string;
  const big = Buffer.alloc(300_000, "a");
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-obs-"));
    await writeFile(join(dir, "big.txt"), big);
    server = await spawnServer(["--root", dir, "--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]);
    const listening = server.lines.map((l) => JSON.parse(l) as LogLine).find((r) => r["msg"] === "listening")!;
    metrics = String(listening["metrics"]);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("the gRPC log line carries the ErrorInfo reason of a failure, and none on success", async () => {
    const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
    await assert.rejects(client.statFile({ path: "../outside" }, { headers: { "x-request-id": "obs-grpc-1" } }));
    assert.equal((await rpcLine(server, "obs-grpc-1"))["reason"], "PATH_TRAVERSAL");
    await client.statFile({ path: "big.txt" }, { headers: { "x-request-id": "obs-grpc-2" } });
    const ok = await rpcLine(server, "obs-grpc-2");
    assert.equal(ok["code"], "OK");
    assert.equal("reason" in ok, false);
  });

  it("the gRPC listener echoes the request id with every kind of answer (headers go with the first message or the status)", async () => {
    let echoed: string | null = null;
    const client = createClient(
      FileTools,
      createGrpcTransport({
        baseUrl: `http://${server.address}`,
        interceptors: [echoedRequestId((id) => (echoed = id))],
      }),
    );
    await client.statFile({ path: "big.txt" }, { headers: { "x-request-id": "echo-unary-ok" } });
    assert.equal(echoed, "echo-unary-ok");
    await assert.rejects(client.statFile({ path: "../outside" }, { headers: { "x-request-id": "echo-unary-error" } }));
    assert.equal(echoed, "echo-unary-error");
    let messages = 0;
    for await (const _ of client.readFile({ path: "big.txt" }, { headers: { "x-request-id": "echo-stream-ok" } }))
      messages++;
    assert.ok(messages >= 3);
    assert.equal(echoed, "echo-stream-ok");
    await assert.rejects(async () => {
      for await (const _ of client.readFile(
        { path: "missing.txt" },
        { headers: { "x-request-id": "echo-stream-error" } },
      ))
        messages++;
    });
    assert.equal(echoed, "echo-stream-error");
  });

  it("the HTTP listener logs the real peer, the bytes a streamed response sent and a request id it echoes", async () => {
    let echoed: string | null = null;
    const client = createClient(
      FileTools,
      createConnectTransport({
        baseUrl: `http://${server.httpAddress}`,
        httpVersion: "1.1",
        interceptors: [echoedRequestId((id) => (echoed = id))],
      }),
    );
    let received = 0;
    for await (const msg of client.readFile(
      { path: "big.txt", mode: ReadMode.BYTES },
      { headers: { "x-request-id": "obs-http-1" } },
    )) {
      if (msg.part.case === "data") received += msg.part.value.byteLength;
    }
    assert.equal(received, big.length);
    assert.equal(echoed, "obs-http-1");
    const line = await rpcLine(server, "obs-http-1");
    assert.equal(line["method"], "/toolhost.files.v1.FileTools/ReadFile");
    assert.equal(line["code"], "OK");
    assert.match(String(line["peer"]), /^127\.0\.0\.1:\d+$/);
    assert.ok((line["bytes_out"] as number) > big.length, `bytes_out ${String(line["bytes_out"])}`);
    assert.ok((line["bytes_in"] as number) > 0);

    await assert.rejects(client.statFile({ path: "../outside" }));
    assert.match(String(echoed), /^[0-9a-f-]{36}$/, "a request without x-request-id gets one made up");
    const failed = await rpcLine(server, String(echoed));
    assert.equal(failed["reason"], "PATH_TRAVERSAL");
    assert.equal(failed["code"], "PERMISSION_DENIED");
  });

  it("a request id that is not a short printable token is replaced, not logged", async () => {
    const res = await fetch(`http://${server.httpAddress}/toolhost.files.v1.FileTools/ListTools`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "x".repeat(129) },
      body: "{}",
    });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get("x-request-id")), /^[0-9a-f-]{36}$/);
  });

  it("serves calls by method, code and reason, latency, bytes, skills and process metrics", async () => {
    const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
    await assert.rejects(client.statFile({ path: "missing.txt" }));
    const { status, text } = await scrape(metrics);
    assert.equal(status, 200);
    assert.ok(
      (sample(
        text,
        "toolhost_rpc_calls_total",
        'method="/toolhost.files.v1.FileTools/StatFile",code="NOT_FOUND",reason="NOT_FOUND"',
      ) ?? 0) >= 1,
      text,
    );
    assert.ok(
      (sample(text, "toolhost_rpc_calls_total", 'method="/toolhost.files.v1.FileTools/ReadFile",code="OK",reason=""') ??
        0) >= 1,
    );
    assert.ok(
      (sample(
        text,
        "toolhost_rpc_duration_seconds_count",
        'method="/toolhost.files.v1.FileTools/StatFile",code="NOT_FOUND"',
      ) ?? 0) >= 1,
    );
    assert.ok(
      (sample(text, "toolhost_rpc_sent_bytes_total", 'method="/toolhost.files.v1.FileTools/ReadFile"') ?? 0) >
        big.length,
    );
    assert.ok(
      (sample(text, "toolhost_rpc_received_bytes_total", 'method="/toolhost.files.v1.FileTools/StatFile"') ?? 0) > 0,
    );
    assert.match(text, /^toolhost_skills_loaded [1-9]\d*$/m);
    assert.match(text, /^toolhost_skill_errors 0$/m);
    assert.match(text, /^process_cpu_user_seconds_total /m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.equal((await scrape(metrics, "/other")).status, 404);
  });

  it("counts a stream as active while it is open", async () => {
    const skills = createClient(SkillCatalog, createGrpcTransport({ baseUrl: `http://${server.address}` }));
    const abort = new AbortController();
    const stream = skills.watchSkills({}, { signal: abort.signal })[Symbol.asyncIterator]();
    const first = stream.next().catch(() => undefined);
    const labels = 'method="/toolhost.skills.v1.SkillCatalog/WatchSkills"';
    let open: number | undefined;
    for (let i = 0; i < 100 && open !== 1; i++) {
      open = sample((await scrape(metrics)).text, "toolhost_rpc_active_streams", labels);
      if (open !== 1) await sleep(20);
    }
    assert.equal(open, 1);
    abort.abort();
    await first;
    let closed: number | undefined;
    for (let i = 0; i < 100 && closed !== 0; i++) {
      closed = sample((await scrape(metrics)).text, "toolhost_rpc_active_streams", labels);
      if (closed !== 0) await sleep(20);
    }
    assert.equal(closed, 0);
  });
});
