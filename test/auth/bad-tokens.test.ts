// A real server process over TLS with tokens: its listening line, and a log that names callers
// and reasons but never a token. The flood of bad tokens is in bad-token-flood.test.ts.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

const good = "th_good-token-for-the-flood-test-0000000000";
const expired = "th_expired-token-for-the-flood-test-000000";

describe("a server process with TLS and tokens", () => {
  let tls: TlsFixtures;
  let server: SpawnedServer;
  let client: Client<typeof FileTools>;

  before(async () => {
    tls = await makeTlsFixtures();
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-flood-")));
    const root = path.join(dir, "root");
    await mkdir(root);
    await writeFile(path.join(root, "a.txt"), "hello\n");
    const tokensFile = path.join(dir, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "good-caller", token: good },
      { id: "expired-caller", token: expired, expires: "2021-06-01T00:00:00Z" },
    ]);
    server = await spawnServer([
      "--root",
      root,
      "--tls-cert",
      tls.serverCert,
      "--tls-key",
      tls.serverKey,
      "--tokens-file",
      tokensFile,
    ]);
    client = createClient(
      FileTools,
      createGrpcTransport({ baseUrl: `https://${server.address}`, nodeOptions: { ca: readFileSync(tls.caCert) } }),
    );
  });

  after(async () => {
    await server?.stop();
  });

  it("the listening line says TLS and bearer tokens are on", () => {
    const line = JSON.parse(server.lines.find((l) => l.includes('"listening"'))!) as Record<string, unknown>;
    assert.equal(line["tls"], true);
    assert.deepEqual(line["auth"], ["bearer-token"]);
    assert.deepEqual(line["read_only_roots"], []);
  });

  it("logs the caller's id and a failure's reason, never a token", async () => {
    await client.statFile({ path: "a.txt" }, { headers: { authorization: `Bearer ${good}` } });
    for (const header of ["Bearer th_wrong-token", `Bearer ${expired}`]) {
      await client.statFile({ path: "a.txt" }, { headers: { authorization: header } }).catch(() => undefined);
    }
    const rpcLines = () =>
      server.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r["msg"] === "rpc");
    // The log line of a call may follow its answer: wait for the three calls' lines.
    const records = await waitFor("the three calls' log lines", () => {
      const lines = rpcLines();
      return (
        lines.some((r) => r["code"] === "OK") &&
        lines.some((r) => r["reason"] === "UNAUTHENTICATED") &&
        lines.some((r) => r["reason"] === "TOKEN_EXPIRED") &&
        lines
      );
    });
    const ok = records.find((r) => r["method"] === "/toolhost.files.v1.FileTools/StatFile" && r["code"] === "OK");
    assert.equal(ok?.["caller"], "good-caller");
    const refused = records.find((r) => r["code"] === "UNAUTHENTICATED");
    assert.equal(refused?.["reason"], "UNAUTHENTICATED");
    const expiredLine = records.find((r) => r["reason"] === "TOKEN_EXPIRED");
    assert.ok(expiredLine, "no TOKEN_EXPIRED line");
    const all = server.lines.join("\n");
    assert.ok(!all.includes(good) && !all.includes(expired) && !all.includes("th_wrong"), "a token reached the log");
  });
});
