import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { getChannelzHandlers, Server, ServerCredentials } from "@grpc/grpc-js";
import { startTestServer } from "../support/test-server.js";

/** channelzServerCount is how many servers grpc-js's process-wide channelz registry holds. */
function channelzServerCount(): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = { request: { start_server_id: "0", max_results: "1000" } };
    getChannelzHandlers().GetServers(call as never, (err: unknown, value?: { server?: unknown[] } | null) =>
      err ? reject(err) : resolve(value?.server?.length ?? 0),
    );
  });
}

describe("channelz", () => {
  it("a grpc-js server left at its defaults registers with channelz (the check below can see one)", async () => {
    const before = await channelzServerCount();
    const server = new Server();
    try {
      await new Promise<number>((resolve, reject) =>
        server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, port) =>
          err ? reject(err) : resolve(port),
        ),
      );
      assert.equal(await channelzServerCount(), before + 1);
    } finally {
      server.forceShutdown();
    }
  });

  it("toolhost's server keeps no channelz records, of itself or of its calls", async () => {
    const before = await channelzServerCount();
    const server = await startTestServer();
    try {
      await writeFile(path.join(server.root, "a.txt"), "hello\n");
      const stat = await server.fileTools.statFile({ path: "a.txt" });
      assert.equal(stat.size, 6n);
      assert.equal(await channelzServerCount(), before);
    } finally {
      await server.close();
    }
  });
});
