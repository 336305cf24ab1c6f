import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, it } from "node:test";
import type { ServiceImpl } from "@connectrpc/connect";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { createMcpServer } from "../../src/mcp/create-mcp-server.js";

// Each MCP request's HandlerContext listens on the server's shutdown signal until it is
// aborted; a context left open after its call kept one listener per call for the server's life
// (over HTTP the signal is the listener's, so across every request).

describe("MCP calls leave no listener on the shutdown signal", () => {
  it("after 20 tools/list and 20 tools/call", async () => {
    const shutdown = new AbortController();
    const tools = {
      listTools: async () => ({ tools: [] }),
      callTool: async () => ({ content: "done" }),
    } as unknown as ServiceImpl<typeof Tools>;
    const server = createMcpServer({
      tools,
      caller: { authorization: undefined },
      version: "0.0.0",
      contentBytes: 1000,
      shutdownSignal: shutdown.signal,
      onCallEnd: () => undefined,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "toolhost-test", version: "0.0.0" });
    await client.connect(clientSide);
    try {
      for (let i = 0; i < 20; i++) {
        await client.listTools();
        await client.callTool({ name: "anything", arguments: {} });
      }
      assert.equal(getEventListeners(shutdown.signal, "abort").length, 0);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
