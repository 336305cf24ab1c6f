// 10,000 calls with wrong, malformed, oversized and expired tokens over TLS: each gets the right
// code and reason, the server stays healthy, and the heap returns to its baseline afterwards.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile } from "../support/tls-fixtures.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const good = "th_good-token-for-the-flood-test-0000000000";
const expired = "th_expired-token-for-the-flood-test-000000";

/** heapKiB is the heap in use after full collections: what is still referenced. */
function heapKiB(): number {
  gc();
  gc();
  return Math.round(process.memoryUsage().heapUsed / 1024);
}

describe("a flood of bad tokens", () => {
  let secure: SecureServer;
  let client: Client<typeof FileTools>;

  before(async () => {
    const tls = await makeTlsFixtures();
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-flood-")));
    const root = path.join(dir, "root");
    await mkdir(root);
    await writeFile(path.join(root, "a.txt"), "hello\n");
    const tokensFile = path.join(dir, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "good-caller", token: good },
      { id: "expired-caller", token: expired, expires: "2021-06-01T00:00:00Z" },
    ]);
    secure = await startSecureServer({ roots: [{ path: root }], tls, tokensFile });
    client = createClient(
      FileTools,
      createGrpcTransport({ baseUrl: `https://${secure.address}`, nodeOptions: { ca: readFileSync(tls.caCert) } }),
    );
  });

  after(async () => {
    await secure?.close();
  });

  it("answers 10,000 bad calls with the right code, stays healthy, and the heap returns to baseline", async () => {
    const headers: [string, string][] = [
      ["Bearer th_wrong-token-0000000000000000000000000", "UNAUTHENTICATED"],
      ["Bearer", "UNAUTHENTICATED"],
      ["Token abc", "UNAUTHENTICATED"],
      ["Bearer " + "A".repeat(6000), "UNAUTHENTICATED"],
      ["Bearer two words", "UNAUTHENTICATED"],
      [`Bearer ${expired}`, "TOKEN_EXPIRED"],
    ];
    const flood = async (total: number) => {
      const counts = new Map<string, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < total) {
            const [header, reason] = headers[next++ % headers.length]!;
            const err = await client.statFile({ path: "a.txt" }, { headers: { authorization: header } }).then(
              () => undefined,
              (e: unknown) => ConnectError.from(e),
            );
            assert.ok(err, `${header.slice(0, 30)} was accepted`);
            assert.equal(err.code, Code.Unauthenticated, header.slice(0, 30));
            assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, reason, header.slice(0, 30));
            counts.set(reason, (counts.get(reason) ?? 0) + 1);
          }
        }),
      );
      return counts;
    };
    await flood(300);
    const baseline = heapKiB();
    const counts = await flood(10_000);
    assert.equal(counts.get("UNAUTHENTICATED"), 10_000 - Math.floor(10_000 / 6));
    assert.equal(counts.get("TOKEN_EXPIRED"), Math.floor(10_000 / 6));
    // Healthy: a good caller is served at once.
    assert.equal((await client.listRoots({}, { headers: { authorization: `Bearer ${good}` } })).roots.length, 1);
    // What is still in flight when the last answer arrives (the server's ends of calls, session
    // buffers) may take a moment on a busy machine to be let go: the heap gets 25 collections
    // 200 ms apart to come back. A leak of the 10,000 calls stays (>= 200 bytes each is 2 MB).
    let afterFlood = heapKiB();
    for (let i = 0; i < 25 && afterFlood >= baseline + 2048; i++) {
      await new Promise((r) => setTimeout(r, 200));
      afterFlood = heapKiB();
    }
    process.stdout.write(`# heap KiB after GC: baseline ${baseline}, after 10,000 bad calls ${afterFlood}\n`);
    assert.ok(afterFlood < baseline + 2048, `heap grew from ${baseline} KiB to ${afterFlood} KiB`);
  });
});
