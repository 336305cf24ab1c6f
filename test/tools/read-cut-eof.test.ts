import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/test-server.js";

// A read tool result cut at the content cap is not the end of the file, even when the stream
// under it reached the end (its content fits the collector's cap + 64 KiB, but not the cap once
// numbered or in base64): eof and the sha256 of what the stream sent would tell a client that
// pages until eof (test/support/mcp-paged-read.ts) that it has it all.
describe("a read tool page cut at the cap", () => {
  const cap = 4096;
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "short-lines.txt"), "ab\n".repeat(1500)); // 4500 bytes, 1500 lines
    await writeFile(join(server.root, "blob.bin"), Buffer.alloc(3500, 7)); // base64 is 4668 characters
  });
  after(() => server.close());

  async function read(args: Record<string, unknown>) {
    const res = await server.tools.callTool({
      name: "file_read",
      arguments: JSON.stringify(args),
      maxContentBytes: cap,
    });
    return { ...res, structured: res.structured as { eof?: boolean; sha256?: string; nextCursor?: string } };
  }

  it("says eof false, with no sha256, for text", async () => {
    const page = await read({ path: "short-lines.txt" });
    assert.equal(page.isError, false, page.content);
    assert.equal(page.truncated, true);
    assert.match(page.content, /\[Output cut after line \d+\./);
    assert.equal(page.structured.eof, false);
    assert.equal(page.structured.sha256, "");
    assert.equal(typeof page.structured.nextCursor, "string");
  });

  it("says eof false, with no sha256, for bytes", async () => {
    const page = await read({ path: "blob.bin", mode: "READ_MODE_BYTES" });
    assert.equal(page.isError, false, page.content);
    assert.equal(page.truncated, true);
    assert.equal(page.structured.eof, false);
    assert.equal(page.structured.sha256, "");
  });

  it("still says eof and the sha256 for a page that is not cut", async () => {
    const page = await read({ path: "short-lines.txt", offset: 1400 });
    assert.equal(page.truncated, false);
    assert.equal(page.structured.eof, true);
    assert.match(page.structured.sha256 ?? "", /^[0-9a-f]{64}$/);
  });
});
