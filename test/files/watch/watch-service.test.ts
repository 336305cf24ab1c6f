import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { WatchEventType } from "../../../gen/ts/toolhost/files/v1/watch_pb.js";
import { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import { startTestServer } from "../../support/test-server.js";

describe("WatchFiles over gRPC", () => {
  it("streams READY then changes, and refuses a watch past limits.max_watches with QUOTA_EXCEEDED until one closes", async () => {
    const server = await startTestServer({ limits: { maxWatches: 1 } });
    const first = new AbortController();
    try {
      const stream = server.fileTools.watchFiles({ path: "" }, { signal: first.signal })[Symbol.asyncIterator]();
      assert.equal((await stream.next()).value?.type, WatchEventType.READY);
      writeFileSync(path.join(server.root, "n.txt"), "abc"); // in one go: one CREATED with its size
      const created = (await stream.next()).value;
      assert.equal(created?.type, WatchEventType.CREATED);
      assert.equal(created?.path, "n.txt");
      assert.equal(created?.fileType, FileType.FILE);
      assert.equal(created?.size, 3n);

      const refused = await (async () => {
        try {
          for await (const _ of server.fileTools.watchFiles({ path: "" })) return undefined;
        } catch (err) {
          return ConnectError.from(err);
        }
      })();
      assert.equal(refused?.code, Code.ResourceExhausted);
      assert.match(refused?.message ?? "", /max_watches/);

      first.abort();
      await stream.return?.();
      await new Promise((r) => setTimeout(r, 200));
      const again = server.fileTools.watchFiles({ path: "" })[Symbol.asyncIterator]();
      assert.equal((await again.next()).value?.type, WatchEventType.READY);
      await again.return?.();
    } finally {
      first.abort();
      await server.close();
    }
  });

  it("refuses a path outside the roots with PATH_TRAVERSAL", async () => {
    const server = await startTestServer();
    try {
      await assert.rejects(
        async () => {
          for await (const _ of server.fileTools.watchFiles({ path: "../" })) void _;
        },
        (err: unknown) => ConnectError.from(err).code === Code.PermissionDenied,
      );
    } finally {
      await server.close();
    }
  });
});
