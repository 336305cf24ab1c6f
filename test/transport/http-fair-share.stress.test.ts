// The review's attacks at their full size, with the default limits (issue 27, findings 7 and 8):
// three read-tier callers each announcing 33 x 16 MiB bodies and trickling them, beside an
// innocent caller; and 10,000 unauthenticated requests to made-up paths beside a metrics scrape.
// The default tier proves the same points with small budgets (http-fair-share.test.ts,
// metrics-labels.test.ts).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultLimits } from "../../src/config/config.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

const attackers = ["attacker-1", "attacker-2", "attacker-3"].map((id) => ({
  id,
  token: `th_${id}-token-for-the-fair-share-stress-000`,
}));
const innocent = "th_innocent-token-for-the-fair-share-stress-00";
const bodyBytes = defaultLimits.maxReceiveMessageBytes;

describe("the review's HTTP attacks at full size, with the default limits", { timeout: 300_000 }, () => {
  let server: TestServer;
  const sockets: Socket[] = [];

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolhost-fair-stress-"));
    const tokensFile = join(dir, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      ...attackers.map(({ id, token }) => ({ id, token, scope: { tier: "read" } })),
      { id: "innocent", token: innocent, scope: { tier: "read" } },
    ]);
    server = await startTestServer({ http: true, metrics: true, tokensFile });
    await writeFile(join(server.root, "a.txt"), "hello\n");
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await server.close();
  });

  /** stall announces a 16 MiB StatFile body, sends 10 bytes of it, and collects the reply. */
  function stall(token: string): { reply: string } {
    const [host, port] = server.httpAddress!.split(":");
    const socket = connect(Number(port), host);
    socket.on("error", () => undefined);
    sockets.push(socket);
    const held = { reply: "" };
    socket.on("data", (d: Buffer) => (held.reply += d.toString("latin1")));
    socket.write(
      `POST /toolhost.files.v1.FileTools/StatFile HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n{"path":"a`,
    );
    return held;
  }

  function statFile(token: string): Promise<number | undefined> {
    const body = Buffer.from(JSON.stringify({ path: "a.txt" }));
    return new Promise((resolve, reject) => {
      const req = request(
        `http://${server.httpAddress}/toolhost.files.v1.FileTools/StatFile`,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": body.length,
            authorization: `Bearer ${token}`,
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  it("three callers trickling 33 x 16 MiB bodies each hold their shares, and the innocent caller's 50 calls all succeed", async () => {
    const share = defaultLimits.maxReceiveBufferBytesPerCaller / bodyBytes;
    const opened = attackers.map(({ token }) => Array.from({ length: 33 }, () => stall(token)));
    await waitFor("every attacker's requests past its share to be refused", () =>
      opened.every((mine) => mine.filter((s) => s.reply.startsWith("HTTP/1.1 429 ")).length === 33 - share),
    );
    for (const mine of opened) assert.equal(mine.filter((s) => s.reply === "").length, share);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => statFile(innocent)));
    assert.deepEqual(new Set(statuses), new Set([200]));
  });

  it("10,000 unauthenticated requests to made-up paths leave the metrics' series as they were", async () => {
    const seriesCount = async () =>
      (await (await fetch(`http://${server.metricsAddress}/metrics`)).text())
        .split("\n")
        .filter((l) => l.startsWith("toolhost_rpc_")).length;
    const flood = async (from: number, count: number) => {
      for (let at = from; at < from + count; at += 100) {
        await Promise.all(
          Array.from({ length: 100 }, async (_, k) => {
            const res = await fetch(`http://${server.httpAddress}/made.up.v1.S${at + k}/M${at + k}`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: "{}",
            });
            await res.arrayBuffer();
            assert.equal(res.status, 401);
          }),
        );
      }
    };
    await flood(0, 100);
    const before = await waitFor("the warm-up's series", async () => (await seriesCount()) || undefined);
    await flood(100, 10_000);
    assert.equal(await seriesCount(), before);
  });
});
