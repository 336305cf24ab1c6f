// Start-up rules of TLS and authentication: what a bad file, a half-given pair or an unguarded
// non-loopback listener does (one line, exit 2), what --insecure logs, and `toolhost token create`
// (its command in this process: cli.ts passes its exit code on).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { before, describe, it } from "node:test";
import { ConfigError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { parseAuthFile } from "../../src/auth/auth-file.js";
import { runTokenCommand } from "../../src/token-command.js";
import { spawnServer } from "../support/spawn-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";
import { runCli, serveRefusal } from "./serve-refusal.js";

/** tokenCommand runs `toolhost token ARGS` in this process (what cli.ts's main calls) and collects its output. */
async function tokenCommand(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = "";
  let stderr = "";
  out.on("data", (d: Buffer) => (stdout += d.toString()));
  err.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await runTokenCommand(args, out, err);
  return { code, stdout, stderr };
}

describe("TLS and authentication at start-up", () => {
  let dir: string;
  let tls: TlsFixtures;
  let tokens: string;
  /** The served root, beside the auth files (inside it they are refused: see start-up-inputs). */
  let root: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-cli-sec-"));
    root = join(dir, "root");
    await mkdir(root);
    tls = await makeTlsFixtures();
    tokens = join(dir, "tokens.yaml");
    await writeTokensFile(tokens, [{ id: "t", token: "th_x" }]);
    await writeFile(join(dir, "not-pem.txt"), "hello\n");
  });

  const tlsFlags = () => ["--tls-cert", tls.serverCert, "--tls-key", tls.serverKey];

  it("refuses with one line and exit 2 (the command itself, for a certificate without its key)", async () => {
    const { code, stderr, stdout } = await runCli(["serve", "--root", root, "--tls-cert", tls.serverCert], dir);
    assert.equal(code, 2, stderr);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr.trim(), /^toolhost: a TLS certificate was given without its key; add --tls-key/);
    assert.doesNotMatch(stdout, /listening/);
  });

  for (const [name, args, expected] of [
    [
      "a missing certificate file",
      () => ["--tls-cert", join(dir, "nope.pem"), "--tls-key", tls.serverKey],
      /^TLS certificate .*nope\.pem cannot be read \(ENOENT\); fix tls\.cert \(--tls-cert\)$/,
    ],
    [
      "a certificate file that is not PEM",
      () => ["--tls-cert", join(dir, "not-pem.txt"), "--tls-key", tls.serverKey],
      /^TLS certificate .*not-pem\.txt is not a PEM certificate$/,
    ],
    [
      "a key that does not fit the certificate",
      () => ["--tls-cert", tls.serverCert, "--tls-key", tls.clientKey],
      /^TLS key .*client\.key does not fit certificate/,
    ],
    [
      "a certificate without its key",
      () => ["--tls-cert", tls.serverCert],
      /^a TLS certificate was given without its key; add --tls-key/,
    ],
    [
      "a missing tokens file",
      () => ["--tokens-file", join(dir, "none.yaml")],
      /^auth file .*none\.yaml cannot be read \(ENOENT\); fix auth\.tokens_file \(--tokens-file\)$/,
    ],
    [
      "TLS without authentication beyond loopback",
      () => [...tlsFlags(), "--listen", "0.0.0.0:0"],
      /^refusing to listen on 0\.0\.0\.0:0 without TLS and authentication/,
    ],
    [
      "tokens over plaintext beyond loopback",
      () => ["--tokens-file", tokens, "--listen", "0.0.0.0:0"],
      /^refusing to listen on 0\.0\.0\.0:0 without TLS and authentication/,
    ],
  ] as const) {
    it(`refuses ${name} with a one-line message`, async () => {
      const message = await serveRefusal(["--root", root, ...args()], dir);
      assert.match(message, expected);
      assert.doesNotMatch(message, /\n/);
    });
  }

  it("accepts a non-loopback listener with TLS and tokens (config only, nothing binds)", async () => {
    const config = await loadConfig(
      parseServeFlags(["--root", dir, "--listen", "0.0.0.0:50051", ...tlsFlags(), "--tokens-file", tokens]),
      {},
      dir,
    );
    assert.deepEqual(config.tls, {
      cert: tls.serverCert,
      key: tls.serverKey,
      clientCa: undefined,
      requireClientCert: false,
    });
    const mtls = await loadConfig(
      parseServeFlags([
        "--root",
        dir,
        "--listen",
        "0.0.0.0:50051",
        ...tlsFlags(),
        "--tls-client-ca",
        tls.caCert,
        "--tokens-file",
        tokens,
      ]),
      {},
      dir,
    );
    assert.equal(mtls.tls?.clientCa, tls.caCert);
    await assert.rejects(
      loadConfig(parseServeFlags(["--root", dir, ...tlsFlags(), "--tls-client-ca", tls.caCert]), {}, dir),
      (err: unknown) =>
        err instanceof ConfigError && /map to scopes in the tokens file; add --tokens-file/.test(err.message),
    );
    const file = join(dir, "config.yaml");
    await writeFile(
      file,
      `listen: 0.0.0.0:50051\nroots: [${dir}]\ntls: { cert: ${tls.serverCert}, key: ${tls.serverKey}, client_ca: ${tls.caCert}, require_client_cert: true }\nauth: { tokens_file: ${tokens} }\n`,
    );
    const yaml = await loadConfig(parseServeFlags(["--config", file]), {}, dir);
    assert.equal(yaml.tls?.requireClientCert, true);
    await writeFile(file, `tls: { cert: ${tls.serverCert}, key: ${tls.serverKey}, require_client_cert: true }\n`);
    await assert.rejects(
      loadConfig(parseServeFlags(["--config", file]), {}, dir),
      (err: unknown) => err instanceof ConfigError && /require_client_cert needs tls\.client_ca/.test(err.message),
    );
  });

  it("--insecure logs a warning at start, and the listening line names the auth methods", async () => {
    const server = await spawnServer(["--root", root, "--insecure"]);
    const records = server.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    await server.stop();
    const warning = records.find((r) => r["level"] === 40 && /--insecure/.test(String(r["msg"])));
    assert.ok(warning, "no --insecure warning");
    const listening = records.find((r) => r["msg"] === "listening");
    assert.deepEqual([listening?.["tls"], listening?.["auth"]], [false, ["none"]]);
  });

  it("token create prints a token once and an entry that holds only its hash", async () => {
    const file = join(dir, "created.yaml");
    const first = await tokenCommand([
      "create",
      "--id",
      "ci-agent",
      "--tier",
      "write",
      "--root",
      dir,
      "--namespace",
      "examples",
      "--expires",
      "30d",
      "--append",
      file,
    ]);
    assert.equal(first.code, 0, first.stderr);
    const token = first.stdout.trim();
    assert.match(token, /^th_[A-Za-z0-9_-]{43}$/);
    const text = await readFile(file, "utf8");
    assert.ok(!text.includes(token), "the token itself was written to the file");
    const parsed = parseAuthFile(text, file, [dir]);
    assert.equal(parsed.tokens[0]!.digest.toString("hex"), createHash("sha256").update(token).digest("hex"));
    assert.deepEqual(
      [parsed.tokens[0]!.id, parsed.tokens[0]!.scope.maxTier, parsed.tokens[0]!.scope.namespaces],
      ["ci-agent", "write", ["examples"]],
    );
    assert.ok(parsed.tokens[0]!.expiresAt! > Date.now() + 29 * 86_400_000);
    const again = await tokenCommand(["create", "--id", "ci-agent", "--append", file]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already has an entry with id "ci-agent"/);
    const printed = await tokenCommand(["create", "--id", "other"]);
    assert.match(printed.stdout, /^th_\S+\n\n# Add under "tokens:"[^\n]*\n- id: other\n  sha256: [0-9a-f]{64}\n/);
    const bad = await tokenCommand(["create", "--id", "x", "--tier", "root"]);
    assert.deepEqual([bad.code, bad.stderr.trim().split("\n").length], [2, 1]);
  });
});
