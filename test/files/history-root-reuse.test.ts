import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer } from "../support/test-server.js";
import { reasonOf } from "../support/call-outcome.js";

// Found by the review of the undo model: history is keyed by a root's real path and the path
// under it (ChangeLog.logPath), and history.dir defaults to one folder per user
// (~/.local/state/toolhost/history), shared by every toolhost that user runs. A workspace that
// is removed and made again at the same path (the next agent session, the next CI job, the next
// tenant on a reused container volume) is served with the previous one's history: its
// ListFileHistory shows the earlier workspace's hashes and callers, and RestoreFile writes the
// earlier workspace's contents into the new one.

describe("a root removed and made again at the same path", () => {
  it("does not inherit the history of the root that was there before", async () => {
    const workspace = join(await mkdtemp(join(tmpdir(), "toolhost-review-reuse-")), "workspace");
    const historyDir = await mkdtemp(join(tmpdir(), "toolhost-review-reuse-history-"));
    const secret = "STRIPE_KEY=sk_live_previous_tenant\n";
    await mkdir(workspace);
    const first = await startTestServer({ roots: [{ path: workspace }], history: { dir: historyDir } });
    await first.fileTools.writeFile({ path: ".env", content: { case: "text", value: secret } });
    await first.fileTools.writeFile({ path: ".env", content: { case: "text", value: "STRIPE_KEY=rotated\n" } });
    await first.close();
    // The session ends; its workspace is removed, and the next one is made at the same path.
    await rm(workspace, { recursive: true });
    await mkdir(workspace);
    const next = await startTestServer({ roots: [{ path: workspace }], history: { dir: historyDir } });
    try {
      const listed = (await next.fileTools.listFileHistory({ path: ".env" })).changes;
      const restored = await reasonOf(next.fileTools.restoreFile({ path: ".env", sha256: sha256Hex(secret) }));
      const leaked = (await readFile(join(workspace, ".env"), "utf8").catch(() => "")) === secret;
      assert.deepEqual(
        { listed: listed.length, restored, leaked },
        { listed: 0, restored: "NOT_IN_HISTORY", leaked: false },
        "the new workspace lists and restores the previous workspace's history",
      );
    } finally {
      await next.close();
    }
  });
});
