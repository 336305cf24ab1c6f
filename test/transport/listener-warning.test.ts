import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

describe("many concurrent calls", () => {
  let server: TestServer;
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  before(async () => {
    server = await startTestServer({ http: true });
    await writeFile(join(server.root, "a.txt"), "a\n");
    process.on("warning", onWarning);
  });
  after(async () => {
    process.off("warning", onWarning);
    await server.close();
  });

  it("emit no MaxListenersExceededWarning on either listener", async () => {
    const http = createClient(
      FileTools,
      createConnectTransport({ baseUrl: `http://${server.httpAddress}`, httpVersion: "1.1" }),
    );
    await Promise.all([
      ...Array.from({ length: 64 }, () => server.fileTools.statFile({ path: "a.txt" })),
      ...Array.from({ length: 64 }, async () => {
        for await (const _ of server.fileTools.readFile({ path: "a.txt" })) {
          // drain
        }
      }),
      ...Array.from({ length: 64 }, () => http.statFile({ path: "a.txt" })),
    ]);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  });
});
