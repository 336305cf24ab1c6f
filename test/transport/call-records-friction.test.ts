import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { connect as connectTls } from "node:tls";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { ConnectError, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { reasonOf } from "../support/call-outcome.js";
import { localConfig } from "../support/test-config.js";
import { makeTlsFixtures, writeTokensFile } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

// Issue 32, friction 4: a failed model tool call, a refusal and a failed handshake each leave a
// line (and a metric) that says who, which tool and why.

const reader = "th_records-reader-0123456789abcdef";
type Line = Record<string, unknown>;

/** startLogged starts a server whose log lines land in the returned array. */
async function startLogged(
  change: Parameters<typeof localConfig>[1] = {},
): Promise<{ server: RunningServer; lines: Line[]; root: string }> {
  const base = await mkdtemp(path.join(tmpdir(), "toolhost-records-"));
  const root = path.join(base, "root");
  await mkdir(root);
  await writeFile(path.join(root, "a.txt"), "a\n");
  const tokensFile = path.join(base, "tokens.yaml");
  await writeTokensFile(tokensFile, [{ id: "reader", token: reader, scope: { tier: "read" } }]);
  const lines: Line[] = [];
  const log = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n"))
        if (line.trim() !== "") lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  const server = await startServer(
    localConfig([root], { auth: { tokensFile }, log: { level: "info" }, ...change }),
    createLogger("info", log),
  );
  return { server, lines, root };
}

function bearer(token: string | undefined, requestId?: string): Interceptor {
  return (next) => (req) => {
    if (token !== undefined) req.header.set("authorization", `Bearer ${token}`);
    if (requestId !== undefined) req.header.set("x-request-id", requestId);
    return next(req);
  };
}

describe("call records say who, which tool and why", () => {
  let running: Awaited<ReturnType<typeof startLogged>>;
  let grpc: (token?: string, requestId?: string) => Transport;
  before(async () => {
    running = await startLogged({ httpListen: "127.0.0.1:0", metricsListen: "127.0.0.1:0" });
    grpc = (token, requestId) =>
      createGrpcTransport({
        baseUrl: `http://${running.server.grpcAddress}`,
        interceptors: [bearer(token, requestId)],
      });
  });
  after(() => running.server.close(200));

  const lineOf = (method: string, predicate: (l: Line) => boolean = () => true) =>
    waitFor(`the ${method} line`, () => running.lines.find((l) => l["method"] === method && predicate(l)));

  it("names the caller of a call its scope refuses, on both listeners", async () => {
    const write = { path: "w.txt", content: { case: "text" as const, value: "x" } };
    assert.equal(
      await reasonOf(createClient(FileTools, grpc(reader, "refused-grpc-1")).writeFile(write)),
      "OUT_OF_SCOPE",
    );
    const http = createConnectTransport({
      baseUrl: `http://${running.server.httpAddress}`,
      httpVersion: "1.1",
      interceptors: [bearer(reader, "refused-http-1")],
    });
    assert.equal(await reasonOf(createClient(FileTools, http).writeFile(write)), "OUT_OF_SCOPE");
    for (const id of ["refused-grpc-1", "refused-http-1"]) {
      const line = await lineOf("/toolhost.files.v1.FileTools/WriteFile", (l) => l["request_id"] === id);
      assert.deepEqual(
        { caller: line["caller"], reason: line["reason"] },
        { caller: "reader", reason: "OUT_OF_SCOPE" },
        id,
      );
    }
  });

  it("gives an UNAUTHENTICATED gRPC call a request id, in its answer and its log line", async () => {
    for (const sent of [undefined, "unauth-given-1"]) {
      const error = await createClient(FileTools, grpc(undefined, sent))
        .statFile({ path: "a.txt" })
        .then(
          () => assert.fail("the call succeeded"),
          (err: unknown) => ConnectError.from(err),
        );
      assert.equal(error.findDetails(ErrorInfoSchema)[0]?.reason, "UNAUTHENTICATED");
      const trailerId = error.metadata.get("x-request-id");
      assert.ok(trailerId !== null && trailerId !== "", "the refusal (trailers-only) carries x-request-id");
      if (sent !== undefined) assert.equal(trailerId, sent);
      const line = await lineOf("/toolhost.files.v1.FileTools/StatFile", (l) => l["request_id"] === trailerId);
      assert.equal(line["reason"], "UNAUTHENTICATED");
    }
  });

  it("logs and counts a failed tool call with its tool and reason, though the RPC answers OK", async () => {
    const tools = createClient(Tools, grpc(reader, "tool-call-1"));
    const refused = await tools.callTool({ name: "file_read", arguments: JSON.stringify({ path: "../outside.txt" }) });
    assert.deepEqual(
      { isError: refused.isError, reason: refused.reason, tool: refused.toolName },
      { isError: true, reason: "PATH_TRAVERSAL", tool: "skill/file-read" },
    );
    const unknown = await createClient(Tools, grpc(reader, "tool-call-2")).callTool({
      name: "no_such_tool",
      arguments: "{}",
    });
    assert.equal(unknown.reason, "TOOL_NOT_FOUND");
    const first = await lineOf("/toolhost.tools.v1.Tools/CallTool", (l) => l["request_id"] === "tool-call-1");
    assert.deepEqual(
      { code: first["code"], tool: first["tool"], why: first["tool_reason"] },
      { code: "OK", tool: "skill/file-read", why: "PATH_TRAVERSAL" },
    );
    const second = await lineOf("/toolhost.tools.v1.Tools/CallTool", (l) => l["request_id"] === "tool-call-2");
    assert.deepEqual({ tool: second["tool"], why: second["tool_reason"] }, { tool: "", why: "TOOL_NOT_FOUND" });
    const metrics = await (await fetch(`http://${running.server.metricsAddress}/metrics`)).text();
    assert.match(metrics, /^toolhost_tool_calls_total\{tool="skill\/file-read",reason="PATH_TRAVERSAL"\} 1$/m);
    assert.match(metrics, /^toolhost_tool_calls_total\{tool="unknown",reason="TOOL_NOT_FOUND"\} 1$/m);
    assert.doesNotMatch(metrics, /no_such_tool/, "a name a client sent never becomes a label");
  });
});

describe("a failed TLS handshake", () => {
  it("is logged with its listener, peer and code, on both listeners", async () => {
    const tls = await makeTlsFixtures();
    const running = await startLogged({
      httpListen: "127.0.0.1:0",
      tls: { cert: tls.serverCert, key: tls.serverKey, clientCa: undefined, requireClientCert: false },
    });
    try {
      for (const [listener, address] of [
        ["grpc", running.server.grpcAddress],
        ["http", running.server.httpAddress ?? ""],
      ] as const) {
        const host = address.slice(0, address.lastIndexOf(":"));
        const port = Number(address.slice(address.lastIndexOf(":") + 1));
        // A plaintext client on the TLS port, then a TLS client that trusts no one.
        const plain = connectTcp(port, host, () => plain.end("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
        plain.on("error", () => undefined);
        const untrusting = connectTls({ host, port, ALPNProtocols: ["h2", "http/1.1"], rejectUnauthorized: true });
        untrusting.on("error", () => undefined);
        const line = await waitFor(`the ${listener} handshake's line`, () =>
          running.lines.find((l) => l["msg"] === "tls handshake failed" && l["listener"] === listener),
        );
        assert.match(String(line["peer"]), /^127\.0\.0\.1:\d+$/);
        assert.match(String(line["code"]), /^[A-Z0-9_]+$/);
        plain.destroy();
        untrusting.destroy();
      }
    } finally {
      await running.server.close(200);
    }
  });
});
