import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * readPaged reads `file` whole through MCP's file_read tool in bytes mode, `pageBytes` per
 * tools/call (byteOffset, byteLimit), until the result says eof; each page is the structured
 * result's base64 data. `pageBytes` must leave its base64 within limits.tool_content_bytes.
 */
export async function readPaged(client: Client, file: string, pageBytes: number): Promise<Buffer[]> {
  const pages: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const result = (await client.callTool({
      name: "file_read",
      arguments: { path: file, mode: "READ_MODE_BYTES", byteOffset: offset, byteLimit: pageBytes },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, JSON.stringify(result.content).slice(0, 500));
    const structured = result.structuredContent as { data?: string; eof?: boolean };
    const page = Buffer.from(structured.data ?? "", "base64");
    pages.push(page);
    offset += page.length;
    if (structured.eof === true || page.length === 0) return pages;
  }
}
