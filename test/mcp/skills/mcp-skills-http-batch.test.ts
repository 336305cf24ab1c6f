import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startServer, type RunningServer } from "../../../src/app/start-server.js";
import { createLogger } from "../../../src/transport/create-logger.js";
import { localConfig } from "../../support/test-config.js";

// A JSON-RPC batch on the Streamable HTTP listener is answered as one JSON text once every read
// in it is done: one request's resources/read results hold at most one skill's bytes (16 MiB).

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/mcp-skills");
const bigBytes = 9 * 1024 * 1024;
const uri = "skill://demo/webapp-testing/assets/big.bin";

let server: RunningServer;
let big: string;

async function post(body: unknown): Promise<unknown> {
  const answer = await fetch(`http://${server.mcpAddress}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
  assert.equal(answer.status, 200);
  return answer.json();
}

const read = (id: number) => ({ jsonrpc: "2.0", id, method: "resources/read", params: { uri } });

before(async () => {
  const base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-skills-batch-"));
  const root = path.join(base, "root");
  const skills = path.join(base, "skills");
  await mkdir(root);
  await cp(path.join(fixtures, "webapp-testing"), path.join(skills, "webapp-testing"), { recursive: true });
  big = path.join(skills, "webapp-testing", "assets", "big.bin");
  await writeFile(big, Buffer.alloc(bigBytes, 0));
  server = await startServer(
    localConfig([root], { mcpListen: "127.0.0.1:0", skills: [{ path: skills, namespace: "demo" }] }),
    createLogger("silent", process.stderr),
    "1.2.3",
  );
});

after(async () => {
  await server.close(500);
});

describe("MCP Skills reads in one Streamable HTTP request", () => {
  it("answers a batch's reads up to one skill's bytes and refuses the rest with QUOTA_EXCEEDED", async () => {
    const answers = (await post([read(1), read(2)])) as {
      result?: { contents: { blob: string }[] };
      error?: unknown;
    }[];
    assert.equal(answers.length, 2);
    const served = answers.filter((a) => a.result !== undefined);
    const refused = answers.filter((a) => a.error !== undefined);
    assert.equal(served.length, 1);
    assert.equal(Buffer.from(served[0]!.result!.contents[0]!.blob, "base64").byteLength, bigBytes);
    assert.deepEqual(
      refused.map((a) => a.error),
      [
        {
          code: -32600,
          message: `QUOTA_EXCEEDED: reading ${uri} would take this request's results over 16777216 bytes of skill files; read it in a request of its own (one JSON-RPC message per POST).`,
          data: { reason: "QUOTA_EXCEEDED" },
        },
      ],
    );
    assert.equal((await readFile(big)).byteLength, bigBytes, "the file is unchanged");
  });

  it("serves the same read in a request of its own", async () => {
    const answer = (await post(read(3))) as { result: { contents: { blob: string }[] } };
    assert.equal(Buffer.from(answer.result.contents[0]!.blob, "base64").byteLength, bigBytes);
  });
});
