// Interop over TLS: the generated Go and Python clients against a real server process with TLS,
// once with a bearer token and once with a client certificate (mTLS). Certificates are made per
// run. Needs scripts/install-tools.sh (.venv) and Go on PATH.
// Run: node --import tsx --test test/interop/interop-tls.test.ts
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";
import { describeFailure, runChild, type ChildResult } from "./run-child.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const python = join(repo, ".venv/bin/python");
const sample = { path: "hello.txt", text: "hello over TLS\nsecond line\n" };
const token = "th_interop-token-000000000000000000000000000";
const slow = { timeout: 10 * 60_000 };

describe("interop over TLS", () => {
  let tls: TlsFixtures;
  let server: SpawnedServer;

  before(async () => {
    tls = await makeTlsFixtures();
    const dir = await realpath(await mkdtemp(join(tmpdir(), "toolhost-interop-tls-")));
    const root = join(dir, "root");
    await mkdir(root);
    await writeFile(join(root, sample.path), sample.text);
    const tokensFile = join(dir, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [{ id: "interop-token", token, scope: { tier: "delete" } }],
      [{ id: "interop-cert", identity: "spiffe://toolhost.test/agent", scope: { tier: "delete" } }],
    );
    server = await spawnServer([
      "--root",
      root,
      "--tls-cert",
      tls.serverCert,
      "--tls-key",
      tls.serverKey,
      "--tls-client-ca",
      tls.caCert,
      "--tokens-file",
      tokensFile,
    ]);
  });

  after(async () => {
    await server?.stop();
  });

  const base = () => ({
    TOOLHOST_ADDR: server.address,
    TOOLHOST_SAMPLE_PATH: sample.path,
    TOOLHOST_SAMPLE_TEXT: sample.text,
    TOOLHOST_CA: tls.caCert,
  });
  const withToken = () => ({ ...base(), TOOLHOST_TOKEN: token });
  const withCert = () => ({ ...base(), TOOLHOST_CLIENT_CERT: tls.clientCert, TOOLHOST_CLIENT_KEY: tls.clientKey });

  function assertSucceeded(result: ChildResult, what: string): void {
    assert.equal(
      result.code,
      0,
      `${describeFailure(result, what)}\n--- last server log lines ---\n${server.lines.slice(-20).join("\n")}`,
    );
  }

  for (const [name, env] of [
    ["a bearer token", withToken],
    ["a client certificate", withCert],
  ] as const) {
    it(`go test in examples/go passes over TLS with ${name}`, slow, async () => {
      const goflags = `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim();
      const result = await runChild("go", ["test", "-count=1", "-v", "./..."], {
        cwd: join(repo, "examples/go"),
        env: { ...env(), GOFLAGS: goflags },
      });
      assertSucceeded(result, "go test over TLS failed");
      assert.doesNotMatch(result.stdout, /--- SKIP/, describeFailure(result, "a Go interop test was skipped"));
    });

    it(`pytest examples/python passes over TLS with ${name}`, slow, async () => {
      assert.ok(existsSync(python), `${python} is missing; run scripts/install-tools.sh`);
      const result = await runChild(
        python,
        ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "examples/python"],
        { cwd: repo, env: { ...env(), PYTHONPATH: join(repo, "gen/python") } },
      );
      assertSucceeded(result, "pytest over TLS failed");
      assert.doesNotMatch(result.stdout, /skipped/, describeFailure(result, "a Python interop test was skipped"));
    });
  }

  it("the Go client without a token or certificate is refused with UNAUTHENTICATED", slow, async () => {
    const goflags = `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim();
    const result = await runChild(
      "go",
      ["test", "-count=1", "-run", "TestListToolsStartsWithTheFourSeedFileTools", "./..."],
      { cwd: join(repo, "examples/go"), env: { ...base(), GOFLAGS: goflags } },
    );
    assert.notEqual(result.code, 0, describeFailure(result, "an anonymous Go client was served"));
    assert.match(
      result.stdout + result.stderr,
      /Unauthenticated/,
      describeFailure(result, "the refusal is not UNAUTHENTICATED"),
    );
  });
});
