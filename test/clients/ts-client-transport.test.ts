import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { ClientHttp2Stream } from "node:http2";
import { createClient as createConnectClient } from "@connectrpc/connect";
import { createClient } from "../../clients/ts/src/create-client.js";
import { createHttp2GrpcTransport } from "../../clients/ts/src/transport/http2-grpc-transport.js";
import { createLeanClient } from "../../clients/ts/src/transport/lean-client.js";
import { WideWindowSessionManager } from "../../clients/ts/src/transport/window-session-manager.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { readBytes, readText, readTo } from "../../clients/ts/src/read-file.js";
import { uploadStream } from "../../clients/ts/src/upload.js";
import { errorMetadata, hasReason, reason } from "../../clients/ts/src/error-reason.js";
import { ErrorReason } from "../../gen/ts/toolhost/errors/v1/error_reason_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";

// The client's gRPC transport (HTTP/2, the gRPC port) and the Connect protocol (HTTP/1.1, the
// --http-listen port) must behave alike: same messages, same errors with the same details, same
// cancellation.
for (const protocol of ["grpc", "connect"] as const) {
  describe(`@toolhost/client over the ${protocol} protocol`, { timeout: 60_000 }, () => {
    let server: TestServer;
    let address: string;
    before(async () => {
      server = await startTestServer({ http: protocol === "connect" });
      address = protocol === "connect" ? server.httpAddress! : server.address;
      await writeFile(join(server.root, "three-mib.bin"), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
      await writeFile(join(server.root, "lines.txt"), "alpha\nbeta\ngamma\n");
    });
    after(async () => {
      await server?.close();
    });

    it("makes unary, server-streaming and client-streaming calls with the server's answers", async () => {
      const { files } = createClient(address, { protocol });
      const stat = await files.statFile({ path: "lines.txt" });
      assert.equal(stat.size, 17n);
      assert.equal(await readText(files, "lines.txt", { offset: 1, limit: 1 }), "beta\n");
      const bytes = await readBytes(files, "three-mib.bin");
      assert.equal(bytes.length, 3 * 1024 * 1024 + 17);
      assert.ok(bytes.every((b) => b === 7));
      const sent = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024 + i, i));
      const uploaded = await uploadStream(files, "up.bin", Readable.from(sent));
      const expected = Buffer.concat(sent);
      assert.equal(uploaded.size, BigInt(expected.length));
      assert.deepEqual(await readFile(join(server.root, "up.bin")), expected);
      assert.equal(uploaded.sha256, createHash("sha256").update(expected).digest("hex"));
    });

    it("reports an upload refused on its header while the client still sends, and changes nothing", async () => {
      const { files } = createClient(address, { protocol });
      const chunks = Array.from({ length: 64 }, () => Buffer.alloc(256 * 1024, 9));
      const err = await uploadStream(files, "lines.txt", Readable.from(chunks), { mustNotExist: true }).catch(
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConnectError, String(err));
      assert.equal(err.code, Code.Aborted);
      assert.equal(reason(err), "PRECONDITION_FAILED");
      assert.equal(await readFile(join(server.root, "lines.txt"), "utf8"), "alpha\nbeta\ngamma\n");
      assert.equal((await files.statFile({ path: "lines.txt" })).size, 17n);
    });

    it("hands a slow reader every byte in order, one message at a time", async () => {
      const { files } = createClient(address, { protocol });
      const chunks: Uint8Array[] = [];
      await readTo(files, "three-mib.bin", async (chunk) => {
        chunks.push(chunk);
        await new Promise((r) => setTimeout(r, 5));
      });
      assert.deepEqual(Buffer.concat(chunks), await readFile(join(server.root, "three-mib.bin")));
    });

    it("reports a refused call's code, reason and metadata, on unary and streamed calls alike", async () => {
      const { files } = createClient(address, { protocol });
      const before = await readdir(server.root);
      const unary = await files.statFile({ path: "../outside.txt" }).catch((e: unknown) => e);
      assert.ok(unary instanceof ConnectError);
      assert.equal(unary.code, Code.PermissionDenied);
      assert.ok(hasReason(unary, ErrorReason.PATH_TRAVERSAL));
      assert.equal(errorMetadata(unary).path, "../outside.txt");
      const streamed = await readText(files, "missing.txt").catch((e: unknown) => e);
      assert.ok(streamed instanceof ConnectError);
      assert.equal(streamed.code, Code.NotFound);
      assert.equal(reason(streamed), "NOT_FOUND");
      assert.deepEqual(await readdir(server.root), before);
    });

    it("fails with Unavailable when nothing listens, and with Canceled or DeadlineExceeded when told", async () => {
      const down = createClient("127.0.0.1:1", { protocol });
      const refused = await down.files.listTools({}).catch((e: unknown) => e);
      assert.ok(refused instanceof ConnectError);
      assert.equal(refused.code, Code.Unavailable);
      assert.equal(reason(refused), undefined);

      const { files } = createClient(address, { protocol });
      const abort = new AbortController();
      const stream = files.readFile({ path: "three-mib.bin", mode: ReadMode.BYTES }, { signal: abort.signal });
      const canceled = await (async () => {
        for await (const _ of stream) abort.abort();
      })().catch((e: unknown) => e);
      assert.ok(canceled instanceof ConnectError);
      assert.equal(canceled.code, Code.Canceled);
      const late = await files.statFile({ path: "lines.txt" }, { timeoutMs: 0.001 }).catch((e: unknown) => e);
      assert.ok(late instanceof ConnectError);
      assert.equal(late.code, Code.DeadlineExceeded);
      // The connection still serves the next call.
      assert.equal((await files.statFile({ path: "lines.txt" })).size, 17n);
    });

    it("runs interceptors with the request's headers and the response's header and trailer", async () => {
      const seen: string[] = [];
      const spy: Interceptor = (next) => async (req) => {
        seen.push(`${req.method.name} auth=${req.header.get("authorization")}`);
        const res = await next(req);
        seen.push(`${res.header.get("content-type")} status=${res.trailer.get("grpc-status")}`);
        return res;
      };
      const { files } = createClient(address, { protocol, token: "t0k", interceptors: [spy] });
      await files.statFile({ path: "lines.txt" });
      assert.deepEqual(
        seen,
        protocol === "grpc"
          ? ["StatFile auth=Bearer t0k", "application/grpc+proto status=0"]
          : ["StatFile auth=Bearer t0k", "application/proto status=null"],
      );
    });

    it("hands onHeader and onTrailer the response's header and trailer, on unary and streamed calls", async () => {
      const { files } = createClient(address, { protocol });
      const seen: string[] = [];
      const options = (call: string) => ({
        onHeader: (h: Headers) => seen.push(`${call} header ${h.get("content-type")}`),
        onTrailer: (t: Headers) => seen.push(`${call} trailer ${t.get("grpc-status")}`),
      });
      await files.statFile({ path: "lines.txt" }, options("stat"));
      let messages = 0;
      for await (const _ of files.readFile({ path: "lines.txt", mode: ReadMode.TEXT }, options("read"))) messages++;
      assert.ok(messages >= 2);
      const expected =
        protocol === "grpc"
          ? [
              "stat header application/grpc+proto",
              "stat trailer 0",
              "read header application/grpc+proto",
              "read trailer 0",
            ]
          : [
              "stat header application/proto",
              "stat trailer null",
              "read header application/connect+proto",
              "read trailer null",
            ];
      assert.deepEqual(seen, expected);
    });
  });
}

describe("@toolhost/client's gRPC transport", { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "two-mib.bin"), Buffer.alloc(2 * 1024 * 1024, 3));
  });
  after(async () => {
    await server?.close();
  });

  it("pauses the HTTP/2 stream while a slow reader holds more than the high-water mark, and resumes it", async () => {
    const streams: ClientHttp2Stream[] = [];
    class Spy extends WideWindowSessionManager {
      override async request(...args: Parameters<WideWindowSessionManager["request"]>): Promise<ClientHttp2Stream> {
        const stream = await super.request(...args);
        streams.push(stream);
        stream.on("pause", () => pausedSeen++); // Polled from the reader instead, a fast machine could miss it.
        return stream;
      }
    }
    const baseUrl = `http://${server.address}`;
    const transport = createHttp2GrpcTransport({
      baseUrl,
      sessionManager: new Spy(baseUrl, {}),
      highWaterBytes: 64 * 1024,
    });
    const files = createConnectClient(FileTools, transport);
    let pausedSeen = 0;
    const chunks: Uint8Array[] = [];
    await readTo(files, "two-mib.bin", async (chunk) => {
      chunks.push(chunk);
      // Hold the first chunk until the next 1 MiB message has arrived and paused the stream (a
      // fixed 50 ms missed it on a loaded machine), or 5 s have passed.
      for (let i = 0; i < 500 && chunks.length === 1 && pausedSeen === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
    });
    assert.equal(streams.length, 1);
    assert.ok(pausedSeen > 0, "the stream was never paused");
    assert.deepEqual(Buffer.concat(chunks), Buffer.alloc(2 * 1024 * 1024, 3));
  });

  /** StreamSpy records the streams it opened. */
  class StreamSpy extends WideWindowSessionManager {
    readonly opened: ClientHttp2Stream[] = [];
    override async request(...args: Parameters<WideWindowSessionManager["request"]>): Promise<ClientHttp2Stream> {
      const stream = await super.request(...args);
      this.opened.push(stream);
      return stream;
    }
  }

  it("hands over every message of concurrent large reads intact while it fills message buffers again (text and bytes, kept by the caller)", async () => {
    const binary = randomBytes(5 * 1024 * 1024 + 333);
    const text = randomBytes(3 * 1024 * 1024).toString("base64"); // ~4 MiB: four 1 MiB text messages and a rest
    await writeFile(join(server.root, "random.bin"), binary);
    await writeFile(join(server.root, "random.txt"), text);
    const { files } = createClient(server.address);
    for (let round = 0; round < 3; round++) {
      const keptData: Uint8Array[] = []; // views: their buffers must never be filled again
      const keptText: string[] = [];
      await Promise.all([
        (async () => {
          for await (const m of files.readFile({ path: "random.bin", mode: ReadMode.BYTES }))
            if (m.part.case === "data") keptData.push(m.part.value);
        })(),
        (async () => {
          for await (const m of files.readFile({ path: "random.txt", mode: ReadMode.TEXT }))
            if (m.part.case === "text") keptText.push(m.part.value);
        })(),
      ]);
      assert.ok(
        keptData.length >= 5 && keptText.length >= 4,
        `${keptData.length} data and ${keptText.length} text messages`,
      );
      assert.ok(Buffer.concat(keptData).equals(binary), `round ${round}: the bytes read differ from the file's`);
      assert.equal(keptText.join(""), text, `round ${round}: the text read differs from the file's`);
    }
  });

  it("ends a streamed read with DeadlineExceeded when its timeout passes mid-stream, and with Canceled when aborted", async () => {
    const baseUrl = `http://${server.address}`;
    const sessionManager = new StreamSpy(baseUrl, {});
    const files = createLeanClient(
      FileTools,
      createHttp2GrpcTransport({ baseUrl, sessionManager, highWaterBytes: 64 * 1024 }),
    );
    await files.statFile({ path: "two-mib.bin" });
    let taken = 0;
    const late = await (async () => {
      for await (const _ of files.readFile(
        { path: "two-mib.bin", mode: ReadMode.BYTES, chunkSize: 16 * 1024 },
        // Long enough for the first message even on a loaded machine, short of the whole read.
        { timeoutMs: 1500 },
      )) {
        taken++;
        await new Promise((r) => setTimeout(r, 20)); // 129 messages at 20 ms: past 1.5 s
      }
    })().catch((e: unknown) => e);
    assert.ok(late instanceof ConnectError, String(late));
    assert.equal(late.code, Code.DeadlineExceeded);
    assert.ok(taken > 0 && taken < 100, `messages taken: ${taken}`);
    const abort = new AbortController();
    const canceled = await (async () => {
      for await (const m of files.readFile(
        { path: "two-mib.bin", mode: ReadMode.BYTES, chunkSize: 16 * 1024 },
        { signal: abort.signal },
      )) {
        if (m.part.case === "data") abort.abort();
      }
    })().catch((e: unknown) => e);
    assert.ok(canceled instanceof ConnectError, String(canceled));
    assert.equal(canceled.code, Code.Canceled);
    assert.equal(sessionManager.opened.length, 3); // the first call's, and the two reads'
    for (let i = 0; i < 100 && sessionManager.state() !== "idle"; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(sessionManager.state(), "idle", "a stream stayed open");
  });

  it("reports a unary call's refusal with its reason and metadata, DeadlineExceeded and Canceled, and changes nothing", async () => {
    const baseUrl = `http://${server.address}`;
    const sessionManager = new StreamSpy(baseUrl, {});
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, sessionManager }));
    await files.statFile({ path: "two-mib.bin" });
    const before = await readdir(server.root);
    const refused = await files
      .writeFile({ path: "../outside.txt", content: { case: "text", value: "x" } })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof ConnectError, String(refused));
    assert.equal(refused.code, Code.PermissionDenied);
    assert.ok(hasReason(refused, ErrorReason.PATH_TRAVERSAL));
    assert.equal(errorMetadata(refused).path, "../outside.txt");
    const late = await files.statFile({ path: "two-mib.bin" }, { timeoutMs: 0.001 }).catch((e: unknown) => e);
    assert.ok(late instanceof ConnectError);
    assert.equal(late.code, Code.DeadlineExceeded);
    const abort = new AbortController();
    const pending = files.statFile({ path: "two-mib.bin" }, { signal: abort.signal });
    abort.abort();
    const canceled = await pending.catch((e: unknown) => e);
    assert.ok(canceled instanceof ConnectError);
    assert.equal(canceled.code, Code.Canceled);
    assert.equal(sessionManager.opened.length, 3); // the first call's, the write's, the aborted call's; a deadline under 1 ms opens no stream
    assert.deepEqual(await readdir(server.root), before);
  });

  it("cancels a streamed read that the caller leaves early, so its stream does not stay open", async () => {
    const baseUrl = `http://${server.address}`;
    const sessionManager = new WideWindowSessionManager(baseUrl, {});
    const files = createLeanClient(
      FileTools,
      createHttp2GrpcTransport({ baseUrl, sessionManager, highWaterBytes: 64 * 1024 }),
    );
    for await (const message of files.readFile({ path: "two-mib.bin", mode: ReadMode.BYTES, chunkSize: 16 * 1024 })) {
      assert.equal(message.part.case, "info");
      break;
    }
    for (let i = 0; i < 100 && sessionManager.state() !== "idle"; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(sessionManager.state(), "idle");
    assert.equal((await files.statFile({ path: "two-mib.bin" })).size, 2n * 1024n * 1024n);
  });

  it("stops taking an upload's source once the call is cancelled, and stores nothing", async () => {
    const { files } = createClient(server.address);
    const abort = new AbortController();
    let pulled = 0;
    let returned = false;
    async function* endless(): AsyncGenerator<Uint8Array> {
      try {
        for (let i = 0; i < 10_000; i++) {
          pulled++;
          if (pulled === 3) abort.abort();
          yield Buffer.alloc(64 * 1024, 1);
          await new Promise((r) => setTimeout(r, 1));
        }
      } finally {
        returned = true;
      }
    }
    const err = await uploadStream(files, "never.bin", endless(), { signal: abort.signal }).catch((e: unknown) => e);
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.Canceled);
    for (let i = 0; i < 100 && !returned; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(returned, "the source was not told to stop");
    assert.ok(pulled < 20, `the source was read on: ${pulled} chunks`);
    assert.deepEqual(
      (await readdir(server.root)).filter((n) => n.startsWith("never")),
      [],
    );
  });
});

describe("@toolhost/client over TLS with a token", { timeout: 60_000 }, () => {
  let tls: TlsFixtures;
  let server: SecureServer;
  const token = "th_client-transport-test-token-000000000000";
  before(async () => {
    tls = await makeTlsFixtures();
    const dir = await mkdtemp(join(tmpdir(), "toolhost-ts-tls-"));
    await mkdir(join(dir, "root"));
    await writeFile(join(dir, "root/a.txt"), "hello\n");
    await writeTokensFile(join(dir, "tokens.yaml"), [{ id: "caller", token }]);
    server = await startSecureServer({
      roots: [{ path: join(dir, "root") }],
      tls,
      tokensFile: join(dir, "tokens.yaml"),
    });
  });
  after(async () => {
    await server?.close();
  });

  it("reads with the right token and is refused Unauthenticated with a wrong one", async () => {
    const { files } = createClient(server.address, { tls: { ca: tls.caCert }, token });
    assert.equal(await readText(files, "a.txt"), "hello\n");
    const wrong = createClient(server.address, {
      tls: { ca: tls.caCert },
      token: "th_wrong-token-0000000000000000000000000000",
    });
    const err = await readText(wrong.files, "a.txt").catch((e: unknown) => e);
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.Unauthenticated);
  });

  it("refuses a token HTTP cannot carry before anything is sent", () => {
    for (const bad of ["", "a\r\nx-injected: 1", "nul\0", "caf\u00e9"]) {
      assert.throws(
        () => createClient(server.address, { tls: { ca: tls.caCert }, token: bad }),
        TypeError,
        JSON.stringify(bad),
      );
    }
  });
});
