// A TLS connection's client certificate is read once per connection, on both listeners, and a
// client cannot renegotiate to show another one.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { request, Agent } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { connect, createServer, TLSSocket, type PeerCertificate, type Server } from "node:tls";
import type { AddressInfo } from "node:net";
import { pinPeerCertificate } from "../../src/transport/tls/pin-peer-certificate.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";

let tls: TlsFixtures;

before(async () => {
  tls = await makeTlsFixtures();
});

/** countReads counts calls of TLSSocket's own getPeerCertificate on server-side sockets while `body` runs. */
async function countReads(body: () => Promise<void>): Promise<number> {
  const original = TLSSocket.prototype.getPeerCertificate;
  let reads = 0;
  TLSSocket.prototype.getPeerCertificate = function (this: TLSSocket & { server?: unknown }, ...args: [boolean?]) {
    if (this.server !== undefined) reads++; // a socket a server accepted (the clients check the server's too)
    return original.apply(this, args as [true]);
  } as typeof original;
  try {
    await body();
  } finally {
    TLSSocket.prototype.getPeerCertificate = original;
  }
  return reads;
}

describe("pinPeerCertificate on a bare TLS server", () => {
  let server: Server;
  let serverSockets: TLSSocket[];

  before(async () => {
    serverSockets = [];
    server = createServer({
      cert: readFileSync(tls.serverCert),
      key: readFileSync(tls.serverKey),
      ca: readFileSync(tls.caCert),
      requestCert: true,
      rejectUnauthorized: false,
    });
    server.on("secureConnection", pinPeerCertificate);
    server.on("secureConnection", (socket: TLSSocket) => {
      serverSockets.push(socket);
      socket.on("error", () => socket.destroy()); // as the HTTP and HTTP/2 servers do
      socket.on("data", () => {});
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  });

  after(() => {
    for (const s of serverSockets) s.destroy();
    server.close();
  });

  function client(maxVersion: "TLSv1.2" | "TLSv1.3"): Promise<TLSSocket> {
    const socket = connect({
      host: "127.0.0.1",
      port: (server.address() as AddressInfo).port,
      ca: readFileSync(tls.caCert),
      cert: readFileSync(tls.clientCert),
      key: readFileSync(tls.clientKey),
      servername: "localhost",
      maxVersion,
    });
    return once(socket, "secureConnect").then(() => socket);
  }

  it("hands out one frozen certificate per connection, the same as Node reads, and still gives the detailed one", async () => {
    const socket = await client("TLSv1.3");
    await new Promise((r) => setTimeout(r, 50));
    const peer = serverSockets.at(-1)!;
    const first = peer.getPeerCertificate();
    const second = peer.getPeerCertificate();
    assert.equal(first, second);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.subject) && Object.isFrozen(first.issuer));
    // Nested values too: a caller cannot change what the next one on the connection sees.
    assert.ok(first.ext_key_usage === undefined || Object.isFrozen(first.ext_key_usage));
    assert.throws(() => ((first.subject as unknown as Record<string, unknown>).CN = "admin"), TypeError);
    const fresh = TLSSocket.prototype.getPeerCertificate.call(peer, false) as PeerCertificate;
    assert.equal(first.fingerprint256, fresh.fingerprint256);
    assert.equal(first.subjectaltname, "URI:spiffe://toolhost.test/agent");
    const detailed = peer.getPeerCertificate(true);
    assert.notEqual(detailed, first);
    assert.ok(detailed.issuerCertificate !== undefined);
    socket.destroy();
  });

  it("refuses a client's TLS 1.2 renegotiation with an error on the connection", async () => {
    const socket = await client("TLSv1.2");
    assert.equal(socket.getProtocol(), "TLSv1.2");
    await new Promise((r) => setTimeout(r, 50));
    const peer = serverSockets.at(-1)!;
    const refused = once(peer, "error").then(([err]) => (err as NodeJS.ErrnoException).code);
    socket.on("error", () => {});
    const closed = once(socket, "close");
    socket.renegotiate({ rejectUnauthorized: false }, () => {});
    assert.equal(await refused, "ERR_TLS_RENEGOTIATION_DISABLED");
    await closed;
  });
});

describe("toolhost's listeners read a client certificate once per connection", () => {
  let secure: SecureServer;
  let root: string;

  before(async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-pin-")));
    root = path.join(dir, "root");
    await mkdir(root);
    await writeFile(path.join(root, "a.txt"), "hello\n");
    const tokensFile = path.join(dir, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [],
      [{ id: "agent-cert", identity: "spiffe://toolhost.test/agent", scope: { tier: "read" } }],
    );
    secure = await startSecureServer({ roots: [{ path: root }], tls, tokensFile, clientCa: true, http: true });
  });

  after(async () => {
    await secure?.close();
  });

  it("HTTP/1.1: a client's TLS 1.2 renegotiation closes its connection", async () => {
    const address = secure.server.httpAddress!;
    const socket = connect({
      host: "127.0.0.1",
      port: Number(address.slice(address.lastIndexOf(":") + 1)),
      ca: readFileSync(tls.caCert),
      cert: readFileSync(tls.clientCert),
      key: readFileSync(tls.clientKey),
      servername: "localhost",
      maxVersion: "TLSv1.2",
      ALPNProtocols: ["http/1.1"],
    });
    await once(socket, "secureConnect");
    assert.equal(socket.getProtocol(), "TLSv1.2");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (answer += d)); // read, or the socket never sees its end
    socket.on("error", () => {});
    const closed = once(socket, "close");
    const renegotiated = new Promise<Error | null>((resolve) =>
      socket.renegotiate({ rejectUnauthorized: false }, (err) => resolve(err)),
    );
    const outcome = await Promise.race([
      closed.then(() => "closed"),
      new Promise((r) => setTimeout(() => r("still open"), 5000)),
    ]);
    assert.equal(outcome, "closed", "the server let the client renegotiate");
    // The server answered the attempt as a bad request and closed; the renegotiation never completed.
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.notEqual(await Promise.race([renegotiated, new Promise((r) => setTimeout(() => r("pending"), 200))]), null);
  });

  it("gRPC: five calls on one connection, each authenticated by the certificate, read it once", async () => {
    const { fileTools } = secure.clients(undefined, { clientCert: true });
    const reads = await countReads(async () => {
      for (let i = 0; i < 5; i++) {
        const { roots } = await fileTools.listRoots({});
        assert.deepEqual(
          roots.map((r) => r.path),
          [root],
        );
      }
    });
    assert.equal(reads, 1);
  });

  it("HTTP/1.1: five requests on one kept-alive connection, each authenticated by the certificate, read it once", async () => {
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 1,
      ca: readFileSync(tls.caCert),
      cert: readFileSync(tls.clientCert),
      key: readFileSync(tls.clientKey),
    });
    const address = secure.server.httpAddress!;
    const port = Number(address.slice(address.lastIndexOf(":") + 1));
    const call = () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            servername: "localhost",
            agent,
            method: "POST",
            path: "/toolhost.files.v1.FileTools/ListRoots",
            headers: { "content-type": "application/json" },
          },
          (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (d: string) => (body += d));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
    try {
      const reads = await countReads(async () => {
        for (let i = 0; i < 5; i++) {
          const { status, body } = await call();
          assert.equal(status, 200, body);
          assert.deepEqual(
            (JSON.parse(body) as { roots: { path: string }[] }).roots.map((r) => r.path),
            [root],
          );
        }
      });
      assert.equal(reads, 1);
    } finally {
      agent.destroy();
    }
  });
});
