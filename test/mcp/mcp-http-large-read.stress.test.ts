import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startServer } from "../../src/app/start-server.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { readPaged } from "../support/mcp-paged-read.js";
import { localConfig } from "../support/test-config.js";

// A 100 MB file read whole over MCP Streamable HTTP, page by page through file_read's bytes mode
// (byteOffset, byteLimit), as an agent pages a file too large for one result. The default tier's
// mcp-http.test.ts does the same with 5 MB.

const fileBytes = 100 * 1024 * 1024;
const pageBytes = 720 * 1024;

it("reads a 100 MB file whole through file_read's paging, its sha256 matching", { timeout: 600_000 }, async () => {
  const root = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-large-"));
  const file = path.join(root, "large.bin");
  const expected = createHash("sha256");
  const out = await open(file, "w");
  const block = Buffer.alloc(1024 * 1024);
  for (let at = 0; at < fileBytes; at += block.length) {
    for (let i = 0; i < block.length; i++) block[i] = ((at + i) * 7919) >>> 3;
    expected.update(block);
    await out.write(block);
  }
  await out.close();
  const server = await startServer(
    localConfig([root], {
      mcpListen: "127.0.0.1:0",
      limits: { ...localConfig([]).limits, toolContentBytes: 1024 * 1024 },
    }),
    createLogger("silent"),
  );
  const client = new Client({ name: "toolhost-stress", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://${server.mcpAddress}/mcp`)));
  try {
    const pages = await readPaged(client, "large.bin", pageBytes);
    const actual = createHash("sha256");
    let total = 0;
    for (const page of pages) {
      actual.update(page);
      total += page.length;
    }
    assert.equal(total, fileBytes);
    assert.equal(actual.digest("hex"), expected.digest("hex"));
    assert.equal(pages.length, Math.ceil(fileBytes / pageBytes));
  } finally {
    await client.close();
    await server.close(500);
  }
});
