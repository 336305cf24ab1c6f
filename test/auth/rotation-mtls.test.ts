// Client certificates (mTLS), certificate rotation and token revocation, without a restart.
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "node:tls";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { failureOf } from "../files/write-fixtures.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";

const agentIdentity = "spiffe://toolhost.test/agent";

/** servedCommonName opens a TLS connection and returns the CN of the certificate the server shows. */
function servedCommonName(address: string, ca: string): Promise<string> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(":")),
    Number(address.slice(address.lastIndexOf(":") + 1)),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host, port, ca: readFileSync(ca), ALPNProtocols: ["h2", "http/1.1"], servername: "localhost" },
      () => {
        const cn = socket.getPeerCertificate().subject.CN;
        socket.end();
        resolve(String(Array.isArray(cn) ? cn[0] : cn));
      },
    );
    socket.once("error", reject);
  });
}

/** until polls `check` every 50 ms until it resolves true, failing after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("mTLS, certificate rotation and token revocation", () => {
  let tls: TlsFixtures;
  let root: string;
  let dir: string;
  let tokensFile: string;
  let cert: string;
  let key: string;
  let secure: SecureServer;
  const token = "th_rotation-test-token-0000000000000000000";
  const other = "th_rotation-test-other-0000000000000000000";

  before(async () => {
    tls = await makeTlsFixtures();
    dir = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-rot-")));
    root = path.join(dir, "root");
    await (await import("node:fs/promises")).mkdir(root);
    await writeFile(path.join(root, "a.txt"), "hello\n");
    tokensFile = path.join(dir, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [
        { id: "agent-token", token },
        { id: "other", token: other },
      ],
      [{ id: "agent-cert", identity: agentIdentity, scope: { tier: "read" } }],
    );
    cert = path.join(dir, "server.pem");
    key = path.join(dir, "server.key");
    await copyFile(tls.serverCert, cert);
    await copyFile(tls.serverKey, key);
    secure = await startSecureServer({
      roots: [{ path: root }],
      tls,
      cert,
      key,
      tokensFile,
      clientCa: true,
      http: true,
    });
  });

  after(async () => {
    await secure?.close();
  });

  it("a verified client certificate is the caller: its SAN URI maps to a scope like a token", async () => {
    const { fileTools } = secure.clients(undefined, { clientCert: true });
    const { roots } = await fileTools.listRoots({});
    assert.deepEqual(
      roots.map((r) => r.path),
      [root],
    );
    const write = await failureOf(fileTools.writeFile({ path: "b.txt", content: { case: "text", value: "x" } }));
    assert.deepEqual([write.code, write.reason], [Code.PermissionDenied, "OUT_OF_SCOPE"]);
  });

  it("a certificate from another CA, or none, is not an identity", async () => {
    for (const options of [{ stranger: true }, {}]) {
      const failure = await failureOf(secure.clients(undefined, options).fileTools.listRoots({}));
      assert.deepEqual(
        [failure.code, failure.reason],
        [Code.Unauthenticated, "UNAUTHENTICATED"],
        JSON.stringify(options),
      );
    }
  });

  it("a rotated certificate is served to new connections of both listeners without a restart", async () => {
    const http = secure.server.httpAddress!;
    assert.equal(await servedCommonName(secure.address, tls.caCert), "toolhost-server");
    assert.equal(await servedCommonName(http, tls.caCert), "toolhost-server");
    tls.issueServerCert(cert, key, "rotated-server");
    await until(
      "the rotated certificate",
      async () => (await servedCommonName(secure.address, tls.caCert)) === "rotated-server",
    );
    await until(
      "the rotated certificate on HTTP",
      async () => (await servedCommonName(http, tls.caCert)) === "rotated-server",
    );
    const { roots } = await secure.clients(token).fileTools.listRoots({});
    assert.equal(roots.length, 1);
  });

  it("a half-written rotation (a key that does not fit) keeps the certificate in use", async () => {
    const before = await servedCommonName(secure.address, tls.caCert);
    await copyFile(tls.clientKey, key);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await servedCommonName(secure.address, tls.caCert), before);
    assert.equal((await secure.clients(token).fileTools.listRoots({})).roots.length, 1);
  });

  it("a token removed from the tokens file is refused without a restart; the others still work", async () => {
    const { fileTools } = secure.clients(token);
    assert.equal((await fileTools.listRoots({})).roots.length, 1);
    await writeTokensFile(
      tokensFile,
      [{ id: "other", token: other }],
      [{ id: "agent-cert", identity: agentIdentity, scope: { tier: "read" } }],
    );
    await until("the revocation", async () => (await failureOf(fileTools.listRoots({}))).code === Code.Unauthenticated);
    assert.equal((await secure.clients(other).fileTools.listRoots({})).roots.length, 1);
  });

  it("a tokens file that stops parsing keeps the entries loaded before", async () => {
    await writeFile(tokensFile, "tokens: [ {id: broken\n");
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await secure.clients(other).fileTools.listRoots({})).roots.length, 1);
  });
});

describe("require_client_cert", () => {
  it("fails the handshake of a client without a valid certificate; one with a certificate is served", async () => {
    const tls = await makeTlsFixtures();
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-req-")));
    // The tokens file lies outside the root: inside it, a caller could rewrite its own scope.
    const dir = path.join(base, "root");
    await mkdir(dir);
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [{ id: "t", token: "th_required-0000000000000000000000000000" }],
      [{ id: "agent-cert", identity: agentIdentity, scope: { tier: "read" } }],
    );
    const secure = await startSecureServer({
      roots: [{ path: dir }],
      tls,
      tokensFile,
      clientCa: true,
      requireClientCert: true,
    });
    try {
      for (const options of [{}, { stranger: true }]) {
        const failure = await failureOf(
          secure.clients("th_required-0000000000000000000000000000", options).fileTools.listRoots({}),
        );
        // The TLS handshake fails (the Connect client reports it as UNAVAILABLE, INTERNAL or CANCELED): no call, no ErrorInfo.
        assert.ok(
          [Code.Unavailable, Code.Internal, Code.Canceled].includes(failure.code),
          `${JSON.stringify(options)}: ${failure.code} ${failure.message}`,
        );
        assert.equal(failure.reason, undefined);
      }
      const { roots } = await secure.clients(undefined, { clientCert: true }).fileTools.listRoots({});
      assert.deepEqual(
        roots.map((r) => r.path),
        [dir],
      );
    } finally {
      await secure.close();
    }
  });
});
