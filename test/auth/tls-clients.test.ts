// grpcurl with -cacert and -H authorization (reflection follows the auth rules, health stays
// open), and Connect JSON over HTTPS with curl, against a real server process.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/ts/grpc/health/v1/health_pb.js";
import { describeFailure, runChild } from "../interop/run-child.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const grpcurl = join(repo, ".tools/bin/grpcurl");
const token = "th_grpcurl-and-curl-0000000000000000000000";
const reader = "th_grpcurl-reader-00000000000000000000000";

describe("grpcurl and curl over TLS", () => {
  let tls: TlsFixtures;
  let server: SpawnedServer;
  let root: string;

  before(async () => {
    tls = await makeTlsFixtures();
    const dir = await realpath(await mkdtemp(join(tmpdir(), "toolhost-tls-clients-")));
    root = join(dir, "root");
    await mkdir(root);
    await writeFile(join(root, "hello.txt"), "hello\n");
    const tokensFile = join(dir, "tokens.yaml");
    await writeTokensFile(
      tokensFile,
      [
        { id: "operator", token, scope: { tier: "delete" } },
        { id: "reader", token: reader, scope: { tier: "read" } },
      ],
      [{ id: "agent-cert", identity: "spiffe://toolhost.test/agent", scope: { tier: "read" } }],
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
      "--http-listen",
      "127.0.0.1:0",
    ]);
  });

  after(async () => {
    await server?.stop();
  });

  it("grpcurl -cacert -H authorization lists services and calls ListRoots; without a token reflection is refused", async () => {
    assert.ok(existsSync(grpcurl), `${grpcurl} is missing; run scripts/install-tools.sh`);
    const list = await runChild(grpcurl, [
      "-cacert",
      tls.caCert,
      "-H",
      `authorization: Bearer ${token}`,
      server.address,
      "list",
    ]);
    assert.equal(list.code, 0, describeFailure(list, "grpcurl list failed"));
    assert.match(list.stdout, /toolhost\.files\.v1\.FileTools/);
    const roots = await runChild(grpcurl, [
      "-cacert",
      tls.caCert,
      "-H",
      `authorization: Bearer ${token}`,
      "-d",
      "{}",
      server.address,
      "toolhost.files.v1.FileTools/ListRoots",
    ]);
    assert.equal(roots.code, 0, describeFailure(roots, "grpcurl ListRoots failed"));
    assert.deepEqual(JSON.parse(roots.stdout), { roots: [{ path: root }] });
    const anonymous = await runChild(grpcurl, ["-cacert", tls.caCert, server.address, "list"]);
    assert.notEqual(anonymous.code, 0, describeFailure(anonymous, "reflection answered without a token"));
    assert.match(anonymous.stderr, /Unauthenticated/);
    const tier = await runChild(grpcurl, [
      "-cacert",
      tls.caCert,
      "-H",
      `authorization: Bearer ${reader}`,
      "-format-error",
      "-d",
      '{"path":"x.txt","text":"x"}',
      server.address,
      "toolhost.files.v1.FileTools/WriteFile",
    ]);
    assert.notEqual(tier.code, 0);
    assert.match(tier.stdout + tier.stderr, /OUT_OF_SCOPE/, describeFailure(tier, "no OUT_OF_SCOPE"));
  });

  it("health answers probes without credentials", async () => {
    const health = createClient(
      Health,
      createGrpcTransport({ baseUrl: `https://${server.address}`, nodeOptions: { ca: readFileSync(tls.caCert) } }),
    );
    assert.equal((await health.check({})).status, HealthCheckResponse_ServingStatus.SERVING);
  });

  it("curl calls Connect JSON over HTTPS with a token or a client certificate, and gets 401 without", async () => {
    const url = `https://${server.httpAddress}/toolhost.files.v1.FileTools/ListRoots`;
    const curl = (...extra: string[]) =>
      runChild("curl", [
        "-sS",
        "--cacert",
        tls.caCert,
        "-H",
        "content-type: application/json",
        "-d",
        "{}",
        "-w",
        "\n%{http_code}",
        ...extra,
        url,
      ]);
    const withToken = await curl("-H", `authorization: Bearer ${token}`);
    const [body, status] = withToken.stdout.split("\n");
    assert.equal(status, "200", describeFailure(withToken, "curl with a token failed"));
    assert.deepEqual(JSON.parse(body!), { roots: [{ path: root }] });
    const withCert = await curl("--cert", tls.clientCert, "--key", tls.clientKey);
    assert.equal(
      withCert.stdout.split("\n")[1],
      "200",
      describeFailure(withCert, "curl with a client certificate failed"),
    );
    const anonymous = await curl();
    const [refusal, code] = anonymous.stdout.split("\n");
    assert.equal(code, "401", describeFailure(anonymous, "curl without credentials was not refused"));
    assert.equal((JSON.parse(refusal!) as { code: string }).code, "unauthenticated");
  });

  it("refuses gRPC-Web without a token in its own framing, and a large body without reading it", async () => {
    const url = `https://${server.httpAddress}/toolhost.files.v1.FileTools/ListRoots`;
    const grpcWeb = await runChild("curl", [
      "-sS",
      "-D",
      "-",
      "-o",
      "/dev/null",
      "--cacert",
      tls.caCert,
      "-H",
      "content-type: application/grpc-web+proto",
      "--data-binary",
      "",
      url,
    ]);
    assert.match(grpcWeb.stdout, /^HTTP\/1\.1 200/, describeFailure(grpcWeb, "gRPC-Web refusal"));
    assert.match(grpcWeb.stdout, /grpc-status: 16/i);
    const big = join(root, "..", "big-body.json");
    await writeFile(big, `{"path":"${"x".repeat(12 * 1024 * 1024)}"}`);
    const large = await runChild("curl", [
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "--cacert",
      tls.caCert,
      "-H",
      "content-type: application/json",
      "--data-binary",
      `@${big}`,
      `https://${server.httpAddress}/toolhost.files.v1.FileTools/StatFile`,
    ]);
    assert.equal(large.stdout.trim(), "401", describeFailure(large, "a large unauthenticated body"));
    const logged = server.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r["msg"] === "rpc" && r["method"] === "/toolhost.files.v1.FileTools/StatFile");
    assert.equal(logged.at(-1)?.["reason"], "UNAUTHENTICATED");
  });
});
