import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startMcpStdio, type McpStdioSession } from "../support/mcp-stdio-session.js";

// An image read in bytes mode through toolhost mcp answers MCP image content, which a client
// shows the model, instead of a base64 text; other bytes stay text.

const pixel = path.resolve(import.meta.dirname, "../fixtures/images/pixel.png");

let root: string;
let session: McpStdioSession;

before(async () => {
  const base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-image-"));
  root = path.join(base, "root");
  await mkdir(root);
  await copyFile(pixel, path.join(root, "pixel.png"));
  await writeFile(path.join(root, "blob.bin"), Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10]));
  session = await startMcpStdio(["--root", root]);
  await session.client.listTools(); // The client then checks structuredContent against outputSchema.
});

after(async () => {
  await session.client.close();
});

describe("toolhost mcp image reads", () => {
  it("answers a PNG read in bytes mode as image content and a line naming it", async () => {
    const result = (await session.client.callTool({
      name: "file_read",
      arguments: { path: "pixel.png", mode: "READ_MODE_BYTES" },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    const png = await readFile(pixel);
    assert.deepEqual(result.content, [
      { type: "image", data: png.toString("base64"), mimeType: "image/png" },
      { type: "text", text: `pixel.png: ${png.length} bytes, image/png.` },
    ]);
    assert.equal((result.structuredContent as { data?: string }).data, png.toString("base64"));
  });

  it("refuses the PNG in text mode, naming bytes mode", async () => {
    const result = (await session.client.callTool({
      name: "file_read",
      arguments: { path: "pixel.png" },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    const text = (result.content[0] as { text: string }).text;
    assert.match(text, /PNG image; read it in bytes mode \(READ_MODE_BYTES\)/);
  });

  it("answers other bytes as base64 text", async () => {
    const result = (await session.client.callTool({
      name: "file_read",
      arguments: { path: "blob.bin", mode: "READ_MODE_BYTES" },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal(result.content.length, 1);
    assert.deepEqual(result.content[0], { type: "text", text: "blob.bin: 6 bytes (base64):\nAAEC/wAQ" });
  });
});
