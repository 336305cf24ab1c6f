// Review (edit5): the history line's fsync and the log lock's release are deferred until ~1 ms
// after the answer (after-reply.ts, ChangeLog.holdBack). Graceful shutdown (SIGTERM -> drain ->
// process.exit) does not wait for that deferred work, so an edit answered during the drain can
// leave the history log's lock file behind (and its line unsynced). In another pid namespace (a
// restarted container) that lock is only taken over after staleMs, and the next edit of the same
// file waits up to waitMs for it before answering. Measured (15 trials each): lock left in 9/15
// on edit5, 3/15 on main (the window was one thread-pool fsync; now >= 1 ms timer + fsync).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { spawnServer } from "../support/spawn-server.js";

describe("graceful shutdown after an edit", () => {
  it("leaves no history-log lock file behind once the server has exited", async () => {
    const leftBehind: string[] = [];
    for (let trial = 0; trial < 10 && leftBehind.length === 0; trial++) {
      const dir = mkdtempSync(path.join(os.tmpdir(), "edit5-shutdown-"));
      const root = path.join(dir, "root");
      const history = path.join(dir, "history");
      (await import("node:fs")).mkdirSync(root);
      writeFileSync(path.join(root, "a.txt"), "alpha\n");
      const server = await spawnServer(["--root", root, "--history-dir", history]);
      const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
      // Warm up (log folder made, locality judged), then race an edit's answer with SIGTERM.
      await client.editFile({
        path: "a.txt",
        edits: [{ kind: { case: "replace", value: { oldText: "alpha", newText: "beta" } } }],
      });
      // SIGTERM while the edit is in flight: the drain lets it answer, then the process exits.
      const edit = client.editFile({
        path: "a.txt",
        edits: [{ kind: { case: "replace", value: { oldText: "beta", newText: "gamma" } } }],
      });
      await new Promise((r) => setTimeout(r, 1));
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.kill("SIGTERM");
      await edit;
      await exited; // one SIGTERM, as an orchestrator sends (stop() would send a second: a forced exit)
      const logDir = path.join(history, "log");
      if (existsSync(logDir))
        leftBehind.push(...readdirSync(logDir).filter((n) => n.startsWith(".toolhost-tmp-lock-")));
    }
    assert.deepEqual(leftBehind, [], "a history log lock file outlived the server's graceful shutdown");
  });
});
