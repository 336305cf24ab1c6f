// A client cannot become another caller on an open connection by renegotiating TLS with another
// certificate (found by review: on the HTTP/1.1 listener a holder of any client certificate the
// CA signed could renegotiate with a certificate from any CA naming a mapped identity, and was
// then served as that identity, since Node keeps `authorized` from the first handshake).
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";

const run = promisify(execFile);

describe("TLS renegotiation with another certificate", () => {
  let tls: TlsFixtures;
  let secure: SecureServer;
  let client: string;
  let nobody: { cert: string; key: string };

  before(async () => {
    tls = await makeTlsFixtures();
    // A certificate the CA signed whose identity the tokens file does not name.
    const openssl = (args: string[]) =>
      execFileSync("openssl", args, { cwd: tls.dir, stdio: ["ignore", "ignore", "pipe"] });
    openssl([
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "nobody.key",
      "-out",
      "nobody.csr",
      "-subj",
      "/CN=nobody",
    ]);
    await writeFile(
      path.join(tls.dir, "nobody.ext"),
      "subjectAltName=URI:spiffe://toolhost.test/nobody\nextendedKeyUsage=clientAuth\n",
    );
    openssl([
      "x509",
      "-req",
      "-in",
      "nobody.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "nobody.pem",
      "-days",
      "1",
      "-extfile",
      "nobody.ext",
    ]);
    nobody = { cert: path.join(tls.dir, "nobody.pem"), key: path.join(tls.dir, "nobody.key") };
    // The client that changes certificate mid-connection (OpenSSL; linked to the runtime libraries).
    client = path.join(tls.dir, "renegotiating-client");
    execFileSync("gcc", [
      "-O1",
      "-o",
      client,
      path.join(import.meta.dirname, "../support/renegotiating-client.c"),
      "-l:libssl.so.3",
      "-l:libcrypto.so.3",
    ]);
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-reneg-")));
    await mkdir(path.join(dir, "root"));
    const tokensFile = path.join(dir, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [],
      [{ id: "agent-cert", identity: "spiffe://toolhost.test/agent", scope: { tier: "read" } }],
    );
    secure = await startSecureServer({
      roots: [{ path: path.join(dir, "root") }],
      tls,
      tokensFile,
      clientCa: true,
      http: true,
    });
  });

  after(async () => {
    await secure?.close();
  });

  /** renegotiate runs the client against the HTTP/1.1 listener: first certificate, then the second. */
  async function renegotiate(
    first: { cert: string; key: string },
    second: { cert: string; key: string },
  ): Promise<string> {
    const port = secure.server.httpAddress!.split(":").pop()!;
    // Not execFileSync: the server runs in this process and must answer meanwhile.
    const { stdout } = await run(client, [port, first.cert, first.key, second.cert, second.key], {
      encoding: "utf8",
      timeout: 20_000,
    });
    return stdout;
  }

  it("an unmapped certificate cannot turn into a mapped identity with a certificate from another CA", async () => {
    const out = await renegotiate(nobody, { cert: tls.strangerCert, key: tls.strangerKey });
    assert.match(out, /^handshake: TLSv1\.2$/m);
    assert.match(out, /^\[before\] HTTP\/1\.1 401 /m, out);
    assert.doesNotMatch(
      out,
      /^\[after\] HTTP\/1\.1 200 /m,
      `served as the mapped identity after renegotiating:\n${out}`,
    );
    // The server closes a refused caller's connection after its 401, so the renegotiation may
    // not even start; either way nothing is served after it.
    assert.match(out, /^renegotiation: (failed|not started)$/m, out);
    assert.match(out, /^\[after\] (write failed|no response)$/m, out);
  });

  it("an unmapped certificate cannot turn into another valid, mapped one either", async () => {
    const out = await renegotiate(nobody, { cert: tls.clientCert, key: tls.clientKey });
    assert.match(out, /^\[before\] HTTP\/1\.1 401 /m, out);
    assert.match(out, /^renegotiation: (failed|not started)$/m, out);
    assert.doesNotMatch(out, /^\[after\] HTTP\/1\.1 200 /m, out);
  });

  it("the listener still serves new connections afterwards", async () => {
    const { fileTools } = secure.clients(undefined, { clientCert: true });
    const { roots } = await fileTools.listRoots({});
    assert.equal(roots.length, 1);
  });
});
