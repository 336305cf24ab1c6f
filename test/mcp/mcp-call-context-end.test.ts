import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { createMcpServer } from "../../src/mcp/create-mcp-server.js";

// Each tools/list and tools/call runs in a HandlerContext linked to the server's shutdown
// signal; once the request has answered, its context ends, so no listener stays on the shutdown
// signal per request (a long stdio session would pile them up) and the handler's signal reads
// aborted, as a gRPC call's does when it ends. Answers, refusals and tool errors alike.

const shutdown = new AbortController();
const seen: HandlerContext[] = [];
let client: Client;
let server: Server;

const tools = {
  listTools(_request: unknown, context: HandlerContext) {
    seen.push(context);
    return { tools: [] };
  },
  callTool(request: { name: string }, context: HandlerContext) {
    seen.push(context);
    if (request.name === "refused") throw new ConnectError("no", Code.PermissionDenied);
    return { content: "done", isError: false, reason: "", method: "", truncated: false };
  },
} as unknown as ServiceImpl<typeof Tools>;

before(async () => {
  server = createMcpServer({
    tools,
    caller: { authorization: undefined },
    version: "0.0.0",
    contentBytes: 4096,
    shutdownSignal: shutdown.signal,
    onCallEnd: () => {},
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(clientSide);
});

after(async () => {
  shutdown.abort();
  await client.close();
  await server.close();
});

describe("MCP request contexts end with their request", () => {
  it("leaves no listener on the shutdown signal after answers and refusals", async () => {
    const before = getEventListeners(shutdown.signal, "abort").length;
    for (let i = 0; i < 5; i++) {
      await client.listTools();
      const answered = await client.callTool({ name: "ok", arguments: {} });
      assert.deepEqual(answered.content, [{ type: "text", text: "done" }]);
      const refused = await client.callTool({ name: "refused", arguments: {} });
      assert.equal(refused.isError, true);
    }
    assert.equal(seen.length, 15);
    assert.equal(getEventListeners(shutdown.signal, "abort").length, before);
    for (const context of seen) assert.equal(context.signal.aborted, true);
    assert.equal(shutdown.signal.aborted, false);
  });
});
