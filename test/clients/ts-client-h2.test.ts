import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer as createTlsServer } from "node:tls";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { OutgoingHttpHeaders } from "node:http2";
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createClient } from "../../clients/ts/src/create-client.js";
import { readBytes, readTo } from "../../clients/ts/src/read-file.js";
import { createHttp2GrpcTransport } from "../../clients/ts/src/transport/http2-grpc-transport.js";
import { createLeanClient } from "../../clients/ts/src/transport/lean-client.js";
import { FrameParser } from "../../clients/ts/src/transport/h2/frame-parser.js";
import type { H2Stream } from "../../clients/ts/src/transport/h2/h2-stream.js";
import { Http2Connector, type Http2ConnectorOptions } from "../../clients/ts/src/transport/h2/http2-connector.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { WriteFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { answerCalls, grpcMessage, grpcOk, h2, h2Frame, headerBlock, RawH2Peer, responseHeaders, settings, u32Frame, type PeerConnection, type RawFrame } from "../support/raw-h2-peer.js";
import { seededRandom } from "../support/seeded-random.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { makeTlsFixtures, type TlsFixtures } from "../support/tls-fixtures.js";
import { tsxLoader } from "../support/tsx-loader.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Outcome is how a call ended within its bound: "ok", its ConnectError's code name, or "still running" (it hung). */
interface Outcome {
  readonly outcome: string;
  readonly error?: ConnectError;
}

/** settle waits at most `boundMs` for `call` to end and says how it ended. */
async function settle(call: Promise<unknown>, boundMs = 5_000): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<Outcome>((done) => (timer = setTimeout(() => done({ outcome: "still running" }), boundMs)));
  const ended = call.then(
    (): Outcome => ({ outcome: "ok" }),
    (err: unknown): Outcome => (err instanceof ConnectError ? { outcome: Code[err.code], error: err } : { outcome: `not a ConnectError: ${String(err)}` }),
  );
  try {
    return await Promise.race([ended, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** leanClient is a FileTools client on the client's own HTTP/2 connection to `url`. */
function leanClient(url: string, options: Http2ConnectorOptions = {}, highWaterBytes?: number) {
  const connector = new Http2Connector(url, options);
  const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl: url, connector, highWaterBytes }));
  return { files, connector };
}

type Files = ReturnType<typeof leanClient>["files"];

/** readFileData is a ReadFileResponse whose part is `data` (field 3, bytes), encoded by hand. */
function readFileData(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x1a, data.byteLength]), data]);
}

/** BadServerCase is one way for a server's first connection to break HTTP/2. */
interface BadServerCase {
  readonly name: string;
  /** The first connection's script; later connections answer every call OK. */
  readonly script: (conn: PeerConnection) => void;
  /** The first call (a statFile when unset). */
  readonly call?: (files: Files, peer: RawH2Peer) => Promise<unknown>;
  readonly connector?: Http2ConnectorOptions;
  readonly highWaterBytes?: number;
  readonly code: Code;
  readonly message?: string;
  /** The GOAWAY error code the client must send, if it must. */
  readonly goaway?: number;
}

const badServers: BadServerCase[] = [
  {
    name: "answers in HTTP/1",
    script: (conn) => conn.send(Buffer.from("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "latin1")),
    code: Code.Unavailable,
    message: "HTTP/1",
  },
  {
    name: "sends a PING before its SETTINGS",
    script: (conn) => conn.send(h2Frame(h2.type.ping, 0, 0, Buffer.alloc(8)), settings()),
    code: Code.Internal,
    message: "SETTINGS",
    goaway: h2.error.protocolError,
  },
  {
    name: "announces a frame of 16 MiB - 1 (and never sends its payload)",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => conn.send(Buffer.from([0xff, 0xff, 0xff, h2.type.data, 0, 0, 0, 0, id])));
    },
    code: Code.Internal,
    goaway: h2.error.frameSizeError,
  },
  {
    name: "sends more DATA than the connection's window while the reader is paused",
    // Stream window 8 MiB, connection window 65,535 (no WINDOW_UPDATE): a streamed read whose
    // reader holds two messages past its 1-byte high-water mark is paused, so none of what
    // follows is credited back; one byte past 65,535 in all breaks the connection's window.
    connector: { connectionWindow: 65_535 },
    highWaterBytes: 1,
    call: async (files, peer) => {
      const messages = files.readFile({ path: "a.txt", mode: ReadMode.BYTES })[Symbol.asyncIterator]();
      await messages.next(); // the first message; the second stays queued and the stream paused
      await peer.connections[0]!.waitFor((f) => f.type === h2.type.goaway, "a GOAWAY");
      while (!(await messages.next()).done);
    },
    script: (conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        const first = Buffer.concat([grpcMessage(readFileData(Buffer.alloc(10, 1))), grpcMessage(readFileData(Buffer.alloc(10, 2)))]);
        const frames = [responseHeaders(id), h2Frame(h2.type.data, 0, id, first)];
        // Then the start of a 1 MiB message, to one byte past the connection's window.
        const rest = Buffer.alloc(65_535 - first.byteLength + 1);
        rest.writeUInt32BE(1024 * 1024, 1);
        for (let at = 0; at < rest.byteLength; at += 16_384) frames.push(h2Frame(h2.type.data, 0, id, rest.subarray(at, at + 16_384)));
        conn.send(...frames);
      });
    },
    code: Code.Internal,
    message: "window",
    goaway: h2.error.flowControlError,
  },
  {
    name: "sends a header block of endless CONTINUATION frames",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        const frames = [h2Frame(h2.type.headers, 0, id, Buffer.alloc(16_384, 0x61))];
        for (let i = 0; i < 64; i++) frames.push(h2Frame(h2.type.continuation, 0, id, Buffer.alloc(16_384, 0x61)));
        conn.send(...frames);
      });
    },
    code: Code.Internal,
    goaway: h2.error.enhanceYourCalm,
  },
  {
    name: "sends a PUSH_PROMISE",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        const promised = Buffer.alloc(4);
        promised.writeUInt32BE(2);
        const block = headerBlock([[":method", "GET"], [":scheme", "http"], [":authority", "x"], [":path", "/pushed"]]);
        conn.send(h2Frame(h2.type.pushPromise, h2.flag.endHeaders, id, Buffer.concat([promised, block])));
      });
    },
    code: Code.Internal,
    message: "PUSH_PROMISE",
    goaway: h2.error.protocolError,
  },
  {
    name: "sends a header block that is not valid HPACK (index 0)",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => conn.send(h2Frame(h2.type.headers, h2.flag.endHeaders, id, Buffer.from([0x80]))));
    },
    code: Code.Internal,
    goaway: h2.error.compressionError,
  },
  {
    name: "closes the connection in the middle of a response",
    script: (conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        const partial = grpcMessage(Buffer.alloc(100, 7)).subarray(0, 40);
        conn.send(responseHeaders(id), h2Frame(h2.type.data, 0, id, partial));
        conn.socket.end();
      });
    },
    code: Code.Unavailable,
    message: "closed",
  },
];

describe("@toolhost/client's own HTTP/2 client against a server that breaks HTTP/2", { timeout: 60_000 }, () => {
  for (const bad of badServers) {
    it(`fails the call when the server ${bad.name}, and the next call opens a new connection`, async () => {
      const peer = await RawH2Peer.start((conn) => (conn.index === 0 ? bad.script(conn) : answerCalls(conn)));
      const { files, connector } = leanClient(peer.url, bad.connector, bad.highWaterBytes);
      try {
        const first = await settle(bad.call?.(files, peer) ?? files.statFile({ path: "a.txt" }));
        assert.equal(first.outcome, Code[bad.code], first.error?.message);
        if (bad.message !== undefined) assert.match(first.error!.message, new RegExp(bad.message), first.error!.message);
        assert.equal(connector.state(), "idle", "the broken connection is still the connector's");
        const broken = peer.connections[0]!;
        if (bad.goaway !== undefined) {
          await broken.waitFor((f) => f.type === h2.type.goaway, "a GOAWAY");
          assert.equal(broken.goawayCode(), bad.goaway, `GOAWAY code 0x${broken.goawayCode()?.toString(16)}`);
        }
        const second = await settle(files.statFile({ path: "a.txt" }));
        assert.equal(second.outcome, "ok", second.error?.message);
        assert.equal(peer.connections.length, 2, "the second call did not get a new connection");
      } finally {
        connector.abort();
        await peer.close();
      }
    });
  }

  it("resets a stream that gets more DATA than its window (FLOW_CONTROL_ERROR) and keeps the connection", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        // The client announced a stream window of 1,000 bytes: 1,001 in one frame breaks it.
        if (id === 1) conn.send(responseHeaders(id), h2Frame(h2.type.data, 0, id, Buffer.alloc(1_001)));
        else conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url, { streamWindow: 1_000 });
    try {
      const first = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(first.outcome, "Internal", first.error?.message);
      assert.match(first.error!.message, /0x3/);
      const rst = await peer.connections[0]!.waitFor((f) => f.type === h2.type.rstStream && f.streamId === 1, "a RST_STREAM of stream 1");
      assert.equal(rst.payload.readUInt32BE(0), h2.error.flowControlError);
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      assert.equal(peer.connections.length, 1, "a stream error must not cost the connection");
      assert.equal(peer.connections[0]!.goawayCode(), undefined);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("ends a call the server never answers at its deadline, and keeps the connection", async () => {
    const peer = await RawH2Peer.start((conn) => conn.send(settings()));
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }, { timeoutMs: 100 }))).outcome, "DeadlineExceeded");
      assert.equal((await settle(files.statFile({ path: "a.txt" }, { timeoutMs: 100 }))).outcome, "DeadlineExceeded");
      assert.equal(peer.connections.length, 1);
      const conn = peer.connections[0]!;
      const resets = await conn.waitFor((f) => f.type === h2.type.rstStream && f.streamId === 3, "a RST_STREAM of stream 3");
      assert.equal(resets.payload.readUInt32BE(0), h2.error.cancel, "a call past its deadline resets its stream with CANCEL");
    } finally {
      connector.abort();
      await peer.close();
    }
  });
});

describe("@toolhost/client's own HTTP/2 client against a server that keeps HTTP/2", { timeout: 60_000 }, () => {
  it("sends a 200 KB request within the flow-control windows the server grants, and the server gets it intact", async () => {
    const violations: string[] = [];
    let received: Buffer | undefined;
    let dataFrames = 0;
    const peer = await RawH2Peer.start((conn) => {
      // Stream windows of 100 bytes once the client has acknowledged these SETTINGS (65,535 before,
      // RFC 9113 section 6.9.2); the connection's window grows only by the WINDOW_UPDATEs sent here.
      conn.send(settings([[h2.setting.initialWindowSize, 100]]));
      let acknowledged = false;
      let connectionWindow = 65_535;
      const windows = new Map<number, number>();
      conn.on("frame", (f: RawFrame) => {
        if (f.type === h2.type.settings && (f.flags & h2.flag.ack) !== 0 && !acknowledged) {
          acknowledged = true;
          for (const [id, w] of windows) windows.set(id, w + 100 - 65_535);
        } else if (f.type === h2.type.headers && !windows.has(f.streamId)) {
          windows.set(f.streamId, acknowledged ? 100 : 65_535);
        } else if (f.type === h2.type.data) {
          dataFrames++;
          const n = f.payload.byteLength;
          connectionWindow -= n;
          const streamWindow = windows.get(f.streamId)! - n;
          windows.set(f.streamId, streamWindow);
          if (connectionWindow < 0) violations.push(`DATA of ${n} bytes left the connection window at ${connectionWindow}`);
          if (streamWindow < 0) violations.push(`DATA of ${n} bytes left stream ${f.streamId}'s window at ${streamWindow}`);
          if (n > 0) {
            conn.send(u32Frame(h2.type.windowUpdate, 0, n));
            connectionWindow += n;
            if ((f.flags & h2.flag.endStream) === 0) {
              conn.send(u32Frame(h2.type.windowUpdate, f.streamId, n));
              windows.set(f.streamId, streamWindow + n);
            }
          }
        }
      });
      conn.on("request", (id: number, body: Buffer) => {
        received = body;
        conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      const random = seededRandom(200);
      const content = Buffer.from(Array.from({ length: 200 * 1024 }, () => Math.floor(random() * 256)));
      const result = await settle(files.writeFile({ path: "big.bin", content: { case: "data", value: content } }), 30_000);
      assert.equal(result.outcome, "ok", result.error?.message);
      assert.deepEqual(violations, []);
      assert.ok(dataFrames > 1_000, `only ${dataFrames} DATA frames: the 100-byte stream window was not used`);
      assert.ok(received !== undefined);
      assert.equal(received[0], 0, "uncompressed");
      assert.equal(received.readUInt32BE(1), received.byteLength - 5);
      const request = fromBinary(WriteFileRequestSchema, received.subarray(5));
      assert.equal(request.path, "big.bin");
      assert.equal(request.content.case, "data");
      assert.equal(request.content.value?.length, content.byteLength);
      assert.ok(Buffer.from(request.content.value as Uint8Array).equals(content), "the content arrived changed");
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("keeps to SETTINGS_MAX_CONCURRENT_STREAMS=1: five concurrent calls all succeed, one stream at a time", async () => {
    let open = 0;
    let mostOpen = 0;
    let streams = 0;
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings([[h2.setting.maxConcurrentStreams, 1]]));
      conn.on("stream", () => {
        streams++;
        mostOpen = Math.max(mostOpen, ++open);
      });
      conn.on("request", (id: number) =>
        setTimeout(() => {
          open--; // closed once the answer (END_STREAM) goes out: the client's side ended already
          conn.send(grpcOk(id));
        }, 20),
      );
    });
    const { files, connector } = leanClient(peer.url);
    try {
      // A first call, so that the client has the server's SETTINGS before the five start (before
      // them, RFC 9113 lets a client assume no limit).
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      const results = await Promise.all(Array.from({ length: 5 }, () => settle(files.statFile({ path: "a.txt" }))));
      assert.deepEqual(
        results.map((r) => r.outcome),
        ["ok", "ok", "ok", "ok", "ok"],
      );
      assert.equal(streams, 6);
      assert.equal(mostOpen, 1, "the server saw two streams open at once");
      assert.equal(peer.connections.length, 1);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("fails the call on a stream past a GOAWAY's last stream with Unavailable, and the next call opens a new connection", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        if (conn.index === 0 && id === 3) conn.send(u32Frame(h2.type.goaway, 0, 1, h2.error.noError));
      });
      conn.on("request", (id: number) => {
        if (conn.index > 0 || id === 1) conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      const refused = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(refused.outcome, "Unavailable", refused.error?.message);
      const next = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(next.outcome, "ok", next.error?.message);
      assert.equal(peer.connections.length, 2);
      assert.deepEqual(
        peer.connections[1]!.frames.filter((f) => f.type === h2.type.headers).map((f) => f.streamId),
        [1],
      );
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("answers the server's PING with a PING ACK of the same 8 bytes, and does not answer a PING ACK", async () => {
    const opaque = Buffer.from("p1ng-8by", "latin1");
    const peer = await RawH2Peer.start((conn) => {
      answerCalls(conn);
      conn.send(h2Frame(h2.type.ping, 0, 0, opaque), h2Frame(h2.type.ping, h2.flag.ack, 0, Buffer.from("unasked!", "latin1")));
    });
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      const conn = peer.connections[0]!;
      const ack = await conn.waitFor((f) => f.type === h2.type.ping, "a PING ACK");
      assert.equal(ack.flags & h2.flag.ack, h2.flag.ack);
      assert.equal(ack.streamId, 0);
      assert.deepEqual(ack.payload, opaque);
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok"); // a round trip later
      assert.equal(conn.frames.filter((f) => f.type === h2.type.ping).length, 1);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("fails a call the server resets: REFUSED_STREAM with Unavailable, CANCEL with Canceled", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        if (id === 1) conn.send(u32Frame(h2.type.rstStream, id, h2.error.refusedStream));
        if (id === 3) conn.send(responseHeaders(id), u32Frame(h2.type.rstStream, id, h2.error.cancel));
      });
      conn.on("request", (id: number) => {
        if (id > 3) conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      const refused = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(refused.outcome, "Unavailable", refused.error?.message);
      const canceled = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(canceled.outcome, "Canceled", canceled.error?.message);
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      assert.equal(peer.connections.length, 1);
    } finally {
      connector.abort();
      await peer.close();
    }
  });
});

describe("@toolhost/client's own HTTP/2 client against toolhost", { timeout: 60_000 }, () => {
  let server: TestServer;
  let oneMib: Buffer;
  before(async () => {
    server = await startTestServer();
    oneMib = randomBytes(1024 * 1024);
    await writeFile(join(server.root, "one-mib.bin"), oneMib);
    await writeFile(join(server.root, "two-mib.bin"), Buffer.alloc(2 * 1024 * 1024, 3));
    await writeFile(join(server.root, "a.txt"), "hello\n");
  });
  after(async () => {
    await server?.close();
  });

  it("reads 1 MiB 64 times at once over one client, every copy intact", async () => {
    const { files } = createClient(server.address);
    const copies = await Promise.all(Array.from({ length: 64 }, () => readBytes(files, "one-mib.bin")));
    for (const [i, copy] of copies.entries()) assert.ok(copy.equals(oneMib), `copy ${i} differs`);
  });

  it("hands a slow reader every byte, pausing the HTTP/2 stream while it holds more than the high-water mark", async () => {
    let pauses = 0;
    let opened = 0;
    class Spy extends Http2Connector {
      override open(path: string, headers: OutgoingHttpHeaders): H2Stream {
        const stream = super.open(path, headers);
        opened++;
        stream.on("pause", () => pauses++); // counted from the event: polling can miss it
        return stream;
      }
    }
    const baseUrl = `http://${server.address}`;
    const connector = new Spy(baseUrl);
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, connector, highWaterBytes: 64 * 1024 }));
    try {
      const chunks: Uint8Array[] = [];
      await readTo(files, "two-mib.bin", async (chunk) => {
        chunks.push(chunk);
        // Hold the first chunk until the next 1 MiB message has arrived and paused the stream, or 5 s have passed.
        for (let i = 0; i < 500 && chunks.length === 1 && pauses === 0; i++) await new Promise((r) => setTimeout(r, 10));
      });
      assert.equal(opened, 1);
      assert.ok(pauses > 0, "the stream was never paused");
      assert.deepEqual(Buffer.concat(chunks), Buffer.alloc(2 * 1024 * 1024, 3));
    } finally {
      connector.abort();
    }
  });

  it("does not keep a process alive once its calls are done", async () => {
    const script = [
      `const { createClient } = await import(${JSON.stringify(pathToFileURL(join(repo, "clients/ts/src/create-client.ts")).href)});`,
      `const { files } = createClient(process.env.TOOLHOST_ADDRESS);`,
      `const info = await files.statFile({ path: "a.txt" });`,
      `console.log("size " + info.size);`,
    ].join("\n");
    const child = spawn(process.execPath, ["--import", tsxLoader, "--input-type=module", "-e", script], {
      cwd: repo,
      env: { ...process.env, TOOLHOST_ADDRESS: server.address },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([
      new Promise<number | null>((done) => child.on("exit", (code) => done(code))),
      new Promise<"still running">((done) => (timer = setTimeout(() => done("still running"), 10_000))),
    ]);
    clearTimeout(timer);
    if (exited === "still running") child.kill("SIGKILL");
    assert.equal(exited, 0, `the process ${exited === "still running" ? "was still running after 10 s" : `exited ${exited}`}: ${out}`);
    assert.match(out, /size 6/);
  });
});

describe("@toolhost/client's own HTTP/2 client over TLS", { timeout: 60_000 }, () => {
  let tls: TlsFixtures;
  let server: SecureServer;
  before(async () => {
    tls = await makeTlsFixtures();
    const dir = await mkdtemp(join(tmpdir(), "toolhost-ts-h2-tls-"));
    await mkdir(join(dir, "root"));
    await writeFile(join(dir, "root/a.txt"), "hello\n");
    server = await startSecureServer({ roots: [{ path: join(dir, "root") }], tls });
  });
  after(async () => {
    await server?.close();
  });

  // Internal, as on "node-http2" and "connect-node" (connect-node's code for a TLS error it does not name).
  it("reads over TLS with the right CA, and fails with Internal naming the certificate with a wrong one", async () => {
    const good = createClient(server.address, { tls: { ca: tls.caCert } });
    assert.equal((await settle(good.files.statFile({ path: "a.txt" }))).outcome, "ok");
    const wrong = createClient(server.address, { tls: { ca: join(tls.dir, "other-ca.pem") } });
    const result = await settle(wrong.files.statFile({ path: "a.txt" }));
    assert.equal(result.outcome, "Internal", result.error?.message);
    assert.match(result.error!.message, /certificate/);
  });

  // A server offering only http/1.1 ends the handshake with the "no_application_protocol" alert
  // (Node's TLS server does): the user must still hear Unavailable and "ALPN", as when a server
  // without ALPN completes the handshake.
  for (const alpn of [["http/1.1"], undefined]) {
    it(`fails with Unavailable naming ALPN when the TLS server ${alpn ? `offers only ${alpn.join()}` : "has no ALPN"}`, async () => {
      const plain = createTlsServer({ cert: readFileSync(tls.serverCert), key: readFileSync(tls.serverKey), ...(alpn && { ALPNProtocols: alpn }) }, (s) => s.on("error", () => {}));
      plain.on("tlsClientError", () => {});
      await new Promise<void>((done) => plain.listen(0, "127.0.0.1", done));
      const port = (plain.address() as { port: number }).port;
      try {
        const { files } = createClient(`127.0.0.1:${port}`, { tls: { ca: tls.caCert } });
        const result = await settle(files.statFile({ path: "a.txt" }));
        assert.equal(result.outcome, "Unavailable", result.error?.message);
        assert.match(result.error!.message, /ALPN/);
      } finally {
        await new Promise((done) => plain.close(done));
      }
    });
  }
});

describe("FrameParser", () => {
  /** The frames, built by hand, and the bytes they make. */
  const frames: RawFrame[] = [
    { type: h2.type.settings, flags: 0, streamId: 0, payload: Buffer.from([0, 4, 0, 0, 0, 100, 0, 3, 0, 0, 0, 1]) },
    { type: h2.type.settings, flags: h2.flag.ack, streamId: 0, payload: Buffer.alloc(0) },
    { type: h2.type.headers, flags: h2.flag.endHeaders, streamId: 1, payload: headerBlock([[":status", "200"], ["content-type", "application/grpc"]]) },
    { type: h2.type.data, flags: 0, streamId: 1, payload: Buffer.alloc(0) },
    { type: h2.type.data, flags: 0, streamId: 1, payload: Buffer.from(Array.from({ length: 16_384 }, (_, i) => i % 251)) },
    { type: h2.type.data, flags: h2.flag.endStream, streamId: 3, payload: Buffer.from("x") },
    { type: h2.type.ping, flags: 0, streamId: 0, payload: Buffer.from("12345678") },
    { type: h2.type.windowUpdate, flags: 0, streamId: 0x7fff_ffff, payload: Buffer.from([0, 0, 1, 0]) },
    { type: 0xfa, flags: 0xff, streamId: 5, payload: Buffer.from("an unknown type") },
    { type: h2.type.goaway, flags: 0, streamId: 0, payload: Buffer.from([0, 0, 0, 3, 0, 0, 0, 0]) },
  ];
  const bytes = Buffer.concat([
    ...frames.map((f) => h2Frame(f.type, f.flags, f.streamId, f.payload)),
    // The reserved bit of the stream identifier is ignored (RFC 9113, section 4.1).
    Buffer.from([0, 0, 0, h2.type.data, 0, 0x80, 0, 0, 7]),
  ]);
  const expected = [...frames, { type: h2.type.data, flags: 0, streamId: 7, payload: Buffer.alloc(0) }].map(show);

  function show(f: RawFrame): string {
    return `${f.type}/${f.flags}/${f.streamId}/${f.payload.toString("hex")}`;
  }

  /** parse feeds `chunks` to a new FrameParser and lists the frames it hands on (copied: its views are only valid during the call). */
  function parse(chunks: Buffer[]): string[] {
    const seen: string[] = [];
    const parser = new FrameParser(16_384, (type, flags, streamId, payload) => seen.push(show({ type, flags, streamId, payload: Buffer.from(payload) })));
    for (const c of chunks) parser.push(Buffer.from(c)); // each chunk its own buffer, as a socket hands them
    return seen;
  }

  it("cuts the same frames out of the bytes however they are split into chunks", () => {
    assert.deepEqual(parse([bytes]), expected);
    for (let at = 0; at <= bytes.byteLength; at++) {
      const seen = parse([bytes.subarray(0, at), bytes.subarray(at)]);
      assert.deepEqual(seen, expected, `split at ${at}`);
    }
    const random = seededRandom(10);
    for (let run = 0; run < 300; run++) {
      const cuts = new Set<number>();
      const n = 1 + Math.floor(random() * (run % 3 === 0 ? 400 : 12));
      for (let i = 0; i < n; i++) cuts.add(Math.floor(random() * (bytes.byteLength + 1)));
      const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.byteLength];
      const chunks = points.slice(1).map((end, i) => bytes.subarray(points[i]!, end));
      assert.deepEqual(parse(chunks), expected, `run ${run}, cuts at ${[...cuts].sort((a, b) => a - b).join(",")}`);
    }
    // One byte at a time.
    assert.deepEqual(parse(Array.from(bytes, (b) => Buffer.from([b]))), expected);
  });

  it("refuses a frame longer than its maximum before its payload arrives", () => {
    const parser = new FrameParser(16_384, () => assert.fail("no frame may be handed on"));
    assert.throws(() => parser.push(Buffer.from([0x00, 0x40, 0x01, h2.type.data, 0, 0, 0, 0, 1])), (err: Error & { h2Code?: number }) => err.h2Code === 0x6);
  });
});
