import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startServer, type RunningServer } from "../../../src/app/start-server.js";
import { createLogger } from "../../../src/transport/create-logger.js";
import { localConfig } from "../../support/test-config.js";

// The SDK answers a JSON-RPC batch as one JSON text once every call in it is done, so a batch of
// large skill reads would hold all their bytes at once: the listener refuses batches (MCP has had
// none since 2025-06-18), and one request's resources/read results hold at most 16 MiB.

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/mcp-skills");
const bigBytes = 9 * 1024 * 1024;
const uri = "skill://demo/webapp-testing/assets/big.bin";

let server: RunningServer;
let big: string;

async function post(body: unknown, status = 200): Promise<unknown> {
  const answer = await fetch(`http://${server.mcpAddress}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
  assert.equal(answer.status, status);
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
  it("refuses a batch with 400 and -32600 before running any of it", async () => {
    const answer = await post([read(1), read(2)], 400);
    assert.deepEqual(answer, {
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message:
          "Invalid Request: JSON-RPC batches are not part of MCP (since 2025-06-18); send each message in a POST of its own.",
      },
      id: null,
    });
    assert.equal((await readFile(big)).byteLength, bigBytes, "the file is unchanged");
  });

  it("refuses a body that is not JSON with 400 and -32700", async () => {
    const answer = await fetch(`http://${server.mcpAddress}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    assert.equal(answer.status, 400);
    assert.equal(((await answer.json()) as { error: { code: number } }).error.code, -32700);
  });

  it("serves the same read in a request of its own", async () => {
    const answer = (await post(read(3))) as { result: { contents: { blob: string }[] } };
    assert.equal(Buffer.from(answer.result.contents[0]!.blob, "base64").byteLength, bigBytes);
  });
});
