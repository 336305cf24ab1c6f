// The node:http2 gRPC host (TOOLHOST_GRPC_HOST=node-http2) end to end: grpcurl through its
// reflection over TLS, health open without a token, client certificates (mTLS), a truncated
// upload refused with nothing written, the per-connection stream limit, the idle timeout, a
// graceful close, and a failed call's handler-set headers kept out of a trailers-only answer.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { gzipSync } from "node:zlib";
import type { IncomingHttpHeaders } from "node:http2";
import { StringValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type HandlerContext } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/ts/grpc/health/v1/health_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { StatFileRequestSchema, StatFileResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { UploadFileRequestSchema, WriteFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import { defaultLimits } from "../../src/config/config.js";
import { createLogger } from "../../src/transport/create-logger.js";
import type { GrpcHost } from "../../src/transport/grpc-host.js";
import { describeFailure, runChild } from "../interop/run-child.js";
import { RawGrpcConnection, RawH2Socket, collect, frame, h2 } from "../support/raw-grpc.js";
import { localConfig } from "../support/test-config.js";
import { startEchoHost } from "../support/echo-host.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const grpcurl = join(repo, ".tools/bin/grpcurl");
const token = "th_node-http2-host-000000000000000000000";

describe("the node:http2 gRPC host over TLS", () => {
  let tls: TlsFixtures;
  let server: RunningServer;
  let root: string;

  before(async () => {
    tls = await makeTlsFixtures();
    const dir = await realpath(await mkdtemp(join(tmpdir(), "toolhost-node-http2-")));
    root = join(dir, "root");
    await mkdir(root);
    await writeFile(join(root, "hello.txt"), "hello\n");
    const tokensFile = join(dir, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [{ id: "operator", token, scope: { tier: "delete" } }],
      [{ id: "agent-cert", identity: "spiffe://toolhost.test/agent", scope: { tier: "read" } }],
    );
    server = await startServer(
      localConfig([root], {
        tls: { cert: tls.serverCert, key: tls.serverKey, clientCa: tls.caCert, requireClientCert: false },
        auth: { tokensFile },
      }),
      createLogger("silent"),
    );
  });
  after(() => server?.close(200));

  it("grpcurl lists and describes through reflection with a token, and is refused without one", async () => {
    assert.ok(existsSync(grpcurl), `${grpcurl} is missing; run scripts/install-tools.sh`);
    const auth = ["-cacert", tls.caCert, "-H", `authorization: Bearer ${token}`];
    const list = await runChild(grpcurl, [...auth, server.grpcAddress, "list"]);
    assert.equal(list.code, 0, describeFailure(list, "grpcurl list failed"));
    assert.match(list.stdout, /^toolhost\.files\.v1\.FileTools$/m);
    assert.match(list.stdout, /^grpc\.health\.v1\.Health$/m);
    const described = await runChild(grpcurl, [...auth, server.grpcAddress, "describe", FileTools.typeName]);
    assert.equal(described.code, 0, describeFailure(described, "grpcurl describe failed"));
    assert.match(described.stdout, /rpc ReadFile \( \.toolhost\.files\.v1\.ReadFileRequest \)/);
    const message = await runChild(grpcurl, [
      ...auth,
      server.grpcAddress,
      "describe",
      "toolhost.files.v1.StatFileRequest",
    ]);
    assert.equal(message.code, 0, describeFailure(message, "grpcurl describe of a message failed"));
    const anonymous = await runChild(grpcurl, ["-cacert", tls.caCert, server.grpcAddress, "list"]);
    assert.notEqual(anonymous.code, 0, describeFailure(anonymous, "reflection answered without a token"));
    assert.match(anonymous.stderr, /Unauthenticated/);
  });

  it("answers health without credentials", async () => {
    const health = createClient(
      Health,
      createGrpcTransport({ baseUrl: `https://${server.grpcAddress}`, nodeOptions: { ca: readFileSync(tls.caCert) } }),
    );
    assert.equal((await health.check({})).status, HealthCheckResponse_ServingStatus.SERVING);
  });

  it("admits a client certificate's identity with its scope, and refuses its writes beyond it", async () => {
    const files = createClient(
      FileTools,
      createGrpcTransport({
        baseUrl: `https://${server.grpcAddress}`,
        nodeOptions: {
          ca: readFileSync(tls.caCert),
          cert: readFileSync(tls.clientCert),
          key: readFileSync(tls.clientKey),
        },
      }),
    );
    assert.deepEqual(
      (await files.listRoots({})).roots.map((r) => r.path),
      [root],
    );
    const refused = await files.writeFile({ path: "w.txt", content: { case: "text", value: "x" } }).then(
      () => undefined,
      (err: unknown) => err as { code: number },
    );
    assert.equal(refused?.code, 7);
    assert.deepEqual(await readdir(root), ["hello.txt"]);
  });
});

describe("the node:http2 gRPC host's stream limits (raw HTTP/2)", () => {
  let server: RunningServer;
  let root: string;

  before(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "toolhost-node-http2-raw-")));
    await writeFile(join(root, "a.txt"), "a");
    server = await startServer(
      localConfig([root], { limits: { ...defaultLimits, maxConcurrentStreams: 2 } }),
      createLogger("silent"),
    );
  });
  after(() => server?.close(200));

  it("refuses an upload whose stream ends inside a message with INVALID_ARGUMENT, and writes nothing", async () => {
    const header = frame(
      toBinary(
        UploadFileRequestSchema,
        create(UploadFileRequestSchema, { part: { case: "header", value: { path: "cut.txt" } } }),
      ),
    );
    const data = frame(
      toBinary(
        UploadFileRequestSchema,
        create(UploadFileRequestSchema, { part: { case: "data", value: new Uint8Array(1000).fill(120) } }),
      ),
    );
    const c = await RawGrpcConnection.open(server.grpcAddress);
    try {
      const r = await c.call("/toolhost.files.v1.FileTools/UploadFile", Buffer.concat([header, data.subarray(0, 600)]));
      assert.equal(r.grpcStatus, 3);
      assert.match(r.grpcMessage ?? "", /^The request stream ended inside a message/);
    } finally {
      c.close();
    }
    assert.deepEqual(await readdir(root), ["a.txt"]);
  });

  it("reads a gzip-compressed request message (flag 1, grpc-encoding gzip)", async () => {
    const message = gzipSync(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" })));
    const body = frame(message);
    body[0] = 1;
    const c = await RawGrpcConnection.open(server.grpcAddress);
    try {
      const stream = c.start("/toolhost.files.v1.FileTools/StatFile", { headers: { "grpc-encoding": "gzip" } });
      stream.end(body);
      const r = await collect(stream);
      assert.equal(r.grpcStatus, 0, r.grpcMessage);
      assert.equal(r.messages.length, 1);
      assert.equal(fromBinary(StatFileResponseSchema, r.messages[0]!).size, 1n);
    } finally {
      c.close();
    }
  });

  it("refuses a unary call that sends two request messages with INVALID_ARGUMENT", async () => {
    const request = frame(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" })));
    const c = await RawGrpcConnection.open(server.grpcAddress);
    try {
      const r = await c.call("/toolhost.files.v1.FileTools/StatFile", Buffer.concat([request, request]));
      assert.equal(r.grpcStatus, 3);
      assert.match(r.grpcMessage ?? "", /^The call sent more than one request message/);
      assert.equal(r.messages.length, 0);
    } finally {
      c.close();
    }
    assert.deepEqual(await readdir(root), ["a.txt"]);
  });

  // A unary request is read whole (grpc-only-request.ts): the same refusals as a streamed body.
  const writeMade = () =>
    frame(
      toBinary(
        WriteFileRequestSchema,
        create(WriteFileRequestSchema, { path: "made.txt", content: { case: "text", value: "made\n" } }),
      ),
    );
  for (const [name, body, message] of [
    ["cut inside its message", () => writeMade().subarray(0, 9), /^The request stream ended inside a message: 9 bytes/],
    ["with no message", () => Buffer.alloc(0), /^The request message is missing: the stream half-closed before/],
    [
      "with bytes of a second message after its one",
      () => Buffer.concat([writeMade(), writeMade().subarray(0, 3)]),
      /^The call sent more than one request message; this method takes exactly one/,
    ],
  ] as const) {
    it(`refuses a unary request ${name} with INVALID_ARGUMENT, and writes nothing`, async () => {
      const c = await RawGrpcConnection.open(server.grpcAddress);
      try {
        const r = await c.call("/toolhost.files.v1.FileTools/WriteFile", body());
        assert.equal(r.grpcStatus, 3);
        assert.match(r.grpcMessage ?? "", message);
        assert.equal(r.messages.length, 0);
      } finally {
        c.close();
      }
      assert.deepEqual(await readdir(root), ["a.txt"]);
    });
  }

  it("refuses the stream over the per-connection limit alone, with REFUSED_STREAM", async () => {
    const raw = await RawH2Socket.open(server.grpcAddress);
    try {
      const stat = "/toolhost.files.v1.FileTools/StatFile";
      const ids = Array.from({ length: 3 }, () => raw.request(stat));
      const refused = await raw.waitFor((f) => f.type === h2.RST_STREAM, 5000);
      assert.equal(refused.streamId, ids[2]);
      assert.equal(refused.payload.readUInt32BE(0), 7, "REFUSED_STREAM");
      const request = frame(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" })));
      for (const id of ids.slice(0, 2)) raw.data(id, request, true);
      for (const id of ids.slice(0, 2)) {
        await raw.waitFor((f) => f.type === h2.HEADERS && f.streamId === id && (f.flags & h2.END_STREAM) !== 0, 5000);
      }
      assert.equal(raw.frames.filter((f) => f.type === h2.GOAWAY).length, 0);
    } finally {
      raw.close();
    }
  });
});

describe("the node:http2 gRPC host's idle connections", () => {
  it("closes a connection that has had no open stream for the idle timeout, with GOAWAY", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "toolhost-node-http2-idle-")));
    await writeFile(join(root, "a.txt"), "a");
    const server = await startServer(
      localConfig([root], { limits: { ...defaultLimits, idleConnectionTimeoutMs: 200 } }),
      createLogger("silent"),
    );
    const c = await RawGrpcConnection.open(server.grpcAddress);
    try {
      const goaway = new Promise<number>((resolve) => c.session.once("goaway", (code: number) => resolve(code)));
      const r = await c.call(
        "/toolhost.files.v1.FileTools/StatFile",
        frame(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" }))),
      );
      assert.equal(r.grpcStatus, 0, r.grpcMessage);
      assert.equal(await goaway, 0, "GOAWAY NO_ERROR");
    } finally {
      c.close();
      await server.close(200);
    }
  });
});

describe("the node:http2 gRPC host's graceful close", () => {
  it("lets a call in flight finish within the grace period, then refuses new connections", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "toolhost-node-http2-close-")));
    await writeFile(join(root, "a.txt"), "a");
    const server = await startServer(localConfig([root]), createLogger("silent"));
    const c = await RawGrpcConnection.open(server.grpcAddress);
    try {
      // The stream is open (headers sent, no body yet) when close begins; its answer still comes.
      // A ping's answer comes after the server has taken every frame sent before it, the stream's
      // HEADERS among them.
      const stream = c.start("/toolhost.files.v1.FileTools/StatFile");
      await new Promise<void>((resolve, reject) => c.session.ping((err) => (err ? reject(err) : resolve())));
      const closed = server.close(5000);
      const answered = collect(stream);
      stream.end(frame(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" }))));
      const r = await answered;
      assert.equal(r.grpcStatus, 0, r.grpcMessage);
      await closed;
      await assert.rejects(RawGrpcConnection.open(server.grpcAddress));
    } finally {
      c.close();
    }
  });
});

describe("the node:http2 gRPC host's answer to a call that sends no message", () => {
  // ServerStream fails with no message; the request's value says whether it first sets a header.
  const impl = {
    // biome-ignore lint/correctness/useYield: the call fails before its first message on purpose
    async *serverStream(req: { value: string }, ctx: HandlerContext) {
      if (req.value === "with-header") ctx.responseHeader.set("x-custom-header", "h1");
      throw new ConnectError("refused on purpose", Code.FailedPrecondition);
    },
  };
  const serverStream = "/toolhost.testing.v1.Echo/ServerStream";
  let host: GrpcHost;
  before(async () => {
    host = await startEchoHost(impl);
  });
  after(() => host.close(100));

  /** answer is a ServerStream call's response HEADERS (and whether they ended it) and trailers. */
  async function answer(value: string) {
    const c = await RawGrpcConnection.open(host.address);
    try {
      const stream = c.start(serverStream);
      let ended = false;
      let headers: IncomingHttpHeaders = {};
      stream.on("response", (h, flags: number) => {
        headers = h;
        ended = (flags & h2.END_STREAM) !== 0;
      });
      stream.end(frame(toBinary(StringValueSchema, create(StringValueSchema, { value }))));
      const r = await collect(stream);
      return { headers, ended, r };
    } finally {
      c.close();
    }
  }

  it("sends the response headers its handler set in their own HEADERS frame, then the trailers", async () => {
    const { headers, ended, r } = await answer("with-header");
    assert.equal(ended, false, "answered trailers-only");
    assert.equal(headers["x-custom-header"], "h1");
    assert.equal(headers["grpc-status"], undefined);
    assert.equal(r.grpcStatus, 9, "FAILED_PRECONDITION in the trailers");
    assert.equal(r.grpcMessage, "refused on purpose");
    assert.equal(r.messages.length, 0);
  });

  it("answers trailers-only when its handler set no header", async () => {
    const { headers, ended, r } = await answer("plain");
    assert.equal(ended, true, "not trailers-only");
    assert.equal(headers["grpc-status"], "9");
    assert.equal(r.grpcMessage, "refused on purpose");
  });
});
