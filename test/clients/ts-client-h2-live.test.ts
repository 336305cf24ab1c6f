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
import { createClient } from "../../clients/ts/src/create-client.js";
import { readBytes, readTo } from "../../clients/ts/src/read-file.js";
import { createHttp2GrpcTransport } from "../../clients/ts/src/transport/http2-grpc-transport.js";
import { createLeanClient } from "../../clients/ts/src/transport/lean-client.js";
import type { H2Stream } from "../../clients/ts/src/transport/h2/h2-stream.js";
import { Http2Connector } from "../../clients/ts/src/transport/h2/http2-connector.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { settle } from "../support/settle-call.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { makeTlsFixtures, type TlsFixtures } from "../support/tls-fixtures.js";
import { tsxLoader } from "../support/tsx-loader.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

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

  it("serves a small read after each of six reads broken off while paused (their held bytes go back to the connection's window)", async () => {
    // Each broken read resets a paused stream holding up to its 8 MiB window: were those bytes not
    // given back, four such reads would empty the 32 MiB connection window and stall every call.
    await writeFile(join(server.root, "24-mib.bin"), Buffer.alloc(24 * 1024 * 1024, 5));
    let paused = 0;
    class Spy extends Http2Connector {
      override open(path: string, headers: OutgoingHttpHeaders): H2Stream {
        return super.open(path, headers).on("pause", () => paused++);
      }
    }
    const baseUrl = `http://${server.address}`;
    const connector = new Spy(baseUrl);
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, connector }));
    try {
      const rounds: string[] = [];
      for (let round = 0; round < 6 && !rounds.some((r) => r.includes("not ok")); round++) {
        const pausedBefore = paused;
        const broken = await settle(
          (async () => {
            for await (const _ of files.readFile({ path: "24-mib.bin", mode: ReadMode.BYTES })) {
              // Hold the first message until the stream is paused (past 4 MiB queued), or 5 s.
              for (let i = 0; i < 500 && paused === pausedBefore; i++) await new Promise((r) => setTimeout(r, 10));
              await new Promise((r) => setTimeout(r, 100)); // bytes past the pause arrive and are held
              break;
            }
          })(),
          8_000,
        );
        let text = "";
        const small = await settle(readBytes(files, "a.txt", { signal: AbortSignal.timeout(2_000) }).then((b) => (text = b.toString())));
        const ok = broken.outcome === "ok" && paused > pausedBefore && small.outcome === "ok" && text === "hello\n";
        rounds.push(`${ok ? "ok" : "not ok"}: broken read ${broken.outcome}, ${paused > pausedBefore ? "paused" : "never paused"}; small read ${small.outcome} ${JSON.stringify(text)}`);
      }
      assert.deepEqual(rounds, Array(6).fill('ok: broken read ok, paused; small read ok "hello\\n"'));
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
