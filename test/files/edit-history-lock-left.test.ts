// Review (edit5), consequence of edit-shutdown-history.test.ts: a history-log lock file left by a
// server that exited (graceful shutdown before the deferred fsync+release ran) in another pid
// namespace (a restarted container: its pid says nothing, only age counts, staleMs 15 s) holds up
// the answer of the next edit of that file by lockTimings.waitMs (10 s), and its history line is
// lost. The edit itself is committed; only the answer and the record suffer.
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { editFile } from "../../src/files/edit/edit-file.js";
import { ChangeRecording } from "../../src/files/history/change-recording.js";
import { FileHistory } from "../../src/files/history/file-history.js";
import { scratchDir, writeFixture } from "./write-fixtures.js";

describe("an edit whose history log lock was left by an exited server in another container", () => {
  it("answers without waiting for that lock", { todo: "open: a lock left by a server killed in another pid namespace is taken over only after staleMs; the edit waits for its history line meanwhile (as on main; graceful shutdown no longer leaves one, see edit-shutdown-history)" }, async () => {
    const { root, sandbox } = await writeFixture();
    const dir = await scratchDir("history-");
    const store = new FileHistory({ dir, maxBytes: 1 << 30, maxAgeMs: 3_600_000, maxFileBytes: 1 << 20, maxEntriesPerFile: 1000 });
    await writeFile(path.join(root, "h.txt"), "alpha\n");
    const edit = async (from: string, to: string) => {
      const recording = new ChangeRecording(store);
      try {
        return await editFile(sandbox, {
          path: "h.txt",
          edits: [{ kind: "replace", oldText: from, newText: to }],
          maxEditBytes: 1 << 20,
          beforeChange: recording.capture,
          afterChange: (change) => recording.record({ operation: "edit", caller: "test", before: change.previousSha256, after: change.sha256 }),
        });
      } finally {
        await recording.end();
      }
    };
    await edit("alpha", "beta"); // Makes the log and learns its name.
    await new Promise((r) => setTimeout(r, 50));
    const logDir = path.join(dir, "log");
    const log = readdirSync(logDir).find((n) => !n.startsWith("."))!;
    // What the other container's server left: its owner line, written in place before it exited.
    const { lockFileName } = await import("../../src/files/write/file-lock.js");
    writeFileSync(path.join(logDir, lockFileName(log)), JSON.stringify({ identity: "0123456789ab", pid: 1 }));
    const started = Date.now();
    await edit("beta", "gamma");
    const took = Date.now() - started;
    assert.ok(took < 2000, `the edit's answer waited ${took} ms for a history log lock`);
  });
});
