import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer } from "../support/test-server.js";
import { eventually } from "./write-fixtures.js";
import { reasonOf } from "../support/call-outcome.js";

// Found by the review of the undo model: UndoLastChange takes a file away only once that file
// is "captured into the store first, and must fit it" (undo-change.ts). Fitting is judged by
// history.max_file_bytes alone. A file that fits max_file_bytes but not max_bytes (a legal
// config: nothing ties the two) is put into the store, the store's own bound prunes it at once,
// and the undo deletes the file anyway: the content is then nowhere, and the undo of the undo
// says UNDO_UNAVAILABLE. The same happens to an older blob a prune already running has listed.

/** storedBytes is the total size of the blobs in a history folder. */
async function storedBytes(historyDir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(join(historyDir, "blobs"), { recursive: true, withFileTypes: true }).catch(
    () => [],
  )) {
    if (entry.isFile() && /^[0-9a-f]{64}$/.test(entry.name))
      total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

describe("undo and the store's max_bytes", () => {
  it("an undo that deletes a file keeps it restorable, even when it is larger than max_bytes", async () => {
    await undoOfCreation("precious work\n".repeat(700), "UNDO_UNAVAILABLE"); // 9,800 bytes: under max_file_bytes, over what the store keeps
  });

  it("an undo that deletes a file the store keeps can be undone again at once", async () => {
    await undoOfCreation("precious work\n".repeat(200), "succeeded"); // 2,800 bytes: the store keeps it
  });
});

/** undoOfCreation writes a new file, undoes that, and checks what the undo answered and that nothing was lost. */
async function undoOfCreation(precious: string, expected: string): Promise<void> {
  const historyDir = await mkdtemp(join(tmpdir(), "toolhost-review-prune-"));
  const maxBytes = 4096;
  const server = await startTestServer({ history: { dir: historyDir, maxBytes, maxFileBytes: 16 * 1024 } });
  try {
    const files = server.fileTools;
    await files.writeFile({ path: "p.txt", content: { case: "text", value: precious } });
    const undo = await reasonOf(files.undoLastChange({ path: "p.txt" }));
    assert.equal(undo, expected);
    // Let the store's bound act, as any later change makes it: a small write grows the store,
    // and its prune leaves the store at or under 90% of max_bytes.
    await files.writeFile({ path: "other.txt", content: { case: "text", value: "o1\n" } });
    await files.writeFile({ path: "other.txt", content: { case: "text", value: "o2\n" } });
    await eventually(async () => assert.ok((await storedBytes(historyDir)) <= maxBytes * 0.9, "the store was pruned"));
    const onDisk = await readFile(join(server.root, "p.txt"), "utf8").catch(() => undefined);
    if (undo !== "succeeded") {
      assert.equal(undo, "UNDO_UNAVAILABLE");
      assert.deepEqual((await readdir(server.root)).sort(), ["other.txt", "p.txt"], "nothing else was changed");
      assert.ok(onDisk === precious, "a refused undo changed nothing");
      return;
    }
    assert.equal(onDisk, undefined, "the undo removed the file it created");
    // The undo answered OK, so what it took away must come back: its own undo, or RestoreFile.
    const redo = await reasonOf(files.undoLastChange({ path: "p.txt" }));
    const restore =
      redo === "succeeded"
        ? "not needed"
        : await reasonOf(files.restoreFile({ path: "p.txt", sha256: sha256Hex(precious) }));
    const back = await readFile(join(server.root, "p.txt"), "utf8").catch(() => undefined);
    assert.ok(
      back === precious,
      `the content the undo deleted is gone: its undo answers ${redo}, RestoreFile ${restore}`,
    );
    assert.equal(redo, "succeeded", "the undo of the undo puts the file back");
  } finally {
    await server.close();
  }
}
