import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ChangeOperation } from "../../gen/ts/toolhost/files/v1/history_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { eventually } from "./write-fixtures.js";

/**
 * EditFile writes its history line right after the rename, its fsync alongside the folder's, with
 * the log opened while the edit commits: concurrent edits of one file must still apply one after
 * another (none lost) and the history must list them in the order they committed.
 */
describe("concurrent edits and their history", () => {
  let server: TestServer;
  let historyDir: string;
  before(async () => {
    historyDir = await mkdtemp(join(tmpdir(), "toolhost-edit-history-"));
    server = await startTestServer({ history: { dir: historyDir } });
  });
  after(() => server.close());

  it("apply one after another, none lost, and the history chains them in commit order", async () => {
    const files = server.fileTools;
    await writeFile(join(server.root, "c.txt"), "start\n");
    await files.writeFile({ path: "c.txt", content: { case: "text", value: "start\n" } });
    const count = 12;
    const replies = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        files.editFile({ path: "c.txt", edits: [{ kind: { case: "append", value: { text: `line ${i}\n` } } }] }),
      ),
    );
    const final = await readFile(join(server.root, "c.txt"), "utf8");
    const lines = final.split("\n").filter((l) => l !== "");
    assert.equal(lines[0], "start");
    assert.deepEqual(
      [...lines.slice(1)].sort(),
      Array.from({ length: count }, (_, i) => `line ${i}`).sort(),
      "every edit applied exactly once",
    );

    // Each reply's content before is another's content after: one chain from "start\n" to the end.
    const byBefore = new Map(replies.map((r) => [r.previousSha256, r]));
    assert.equal(byBefore.size, count, "no two edits were computed from the same content");
    let at = sha256Hex("start\n");
    for (let i = 0; i < count; i++) {
      const next = byBefore.get(at);
      assert.ok(next !== undefined, `an edit continues from content ${i}`);
      at = next.sha256;
    }
    assert.equal(at, sha256Hex(final));

    const { changes } = await files.listFileHistory({ path: "c.txt", limit: 100 });
    const oldestFirst = [...changes].reverse();
    assert.equal(oldestFirst.length, count + 1);
    assert.equal(oldestFirst[0]!.operation, ChangeOperation.WRITE);
    for (let i = 1; i < oldestFirst.length; i++) {
      assert.equal(oldestFirst[i]!.operation, ChangeOperation.EDIT);
      assert.equal(
        oldestFirst[i]!.sha256Before,
        oldestFirst[i - 1]!.sha256After,
        `history entry ${i} follows entry ${i - 1}`,
      );
      assert.ok(oldestFirst[i]!.beforeAvailable);
    }
    assert.equal(oldestFirst.at(-1)!.sha256After, sha256Hex(final));
  });

  it("failed and no-change edits among them record nothing and hold up no one", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "m.txt", content: { case: "text", value: "alpha\n" } });
    const calls = Array.from({ length: 9 }, (_, i) => {
      const edit =
        i % 3 === 0
          ? { kind: { case: "replace" as const, value: { oldText: "not in the file", newText: "x" } } }
          : i % 3 === 1
            ? { kind: { case: "replace" as const, value: { oldText: "alpha", newText: "alpha" } } }
            : { kind: { case: "append" as const, value: { text: `more ${i}\n` } } };
      return files.editFile({ path: "m.txt", edits: [edit] }).then(
        (r) => (r.applied ? "applied" : "unchanged"),
        (err: unknown) => ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason ?? "none",
      );
    });
    assert.deepEqual(
      (await Promise.all(calls)).sort(),
      [...Array(3).fill("EDIT_TEXT_NOT_FOUND"), ...Array(3).fill("applied"), ...Array(3).fill("unchanged")].sort(),
    );
    const { changes } = await files.listFileHistory({ path: "m.txt", limit: 100 });
    assert.deepEqual(
      changes.map((c) => c.operation),
      [ChangeOperation.EDIT, ChangeOperation.EDIT, ChangeOperation.EDIT, ChangeOperation.WRITE],
    );
    assert.equal(changes[0]!.sha256After, sha256Hex(await readFile(join(server.root, "m.txt"))));
    // The temporary files the failed and no-change edits staged are gone, and every lock released.
    assert.deepEqual(
      (await readdir(server.root)).filter((n) => n.startsWith(".toolhost-tmp")),
      [],
    );
    // Every log lock is released (the last one just after its line's fsync, which follows the
    // answer): no lock file is left in the log folder.
    await eventually(
      async () =>
        assert.deepEqual(
          (await readdir(join(historyDir, "log"))).filter((n) => n.startsWith(".toolhost-tmp")),
          [],
        ),
      5_000,
    );
  });

  it("an edit of a file never changed before makes no log until it changes something", async () => {
    const files = server.fileTools;
    await writeFile(join(server.root, "fresh.txt"), "one\n");
    const logs = async () => (await readdir(join(historyDir, "log"))).filter((n) => n.endsWith(".jsonl")).length;
    const logsBefore = await logs();
    await assert.rejects(
      files.editFile({
        path: "fresh.txt",
        edits: [{ kind: { case: "replace", value: { oldText: "absent", newText: "x" } } }],
      }),
    );
    await files.editFile({
      path: "fresh.txt",
      edits: [{ kind: { case: "replace", value: { oldText: "one", newText: "one" } } }],
    });
    assert.equal(await logs(), logsBefore, "no empty log was made");
    await files.editFile({
      path: "fresh.txt",
      edits: [{ kind: { case: "replace", value: { oldText: "one", newText: "two" } } }],
    });
    assert.equal(await logs(), logsBefore + 1);
    const { changes } = await files.listFileHistory({ path: "fresh.txt" });
    assert.deepEqual(
      changes.map((c) => [c.operation, c.sha256Before, c.sha256After]),
      [[ChangeOperation.EDIT, sha256Hex("one\n"), sha256Hex("two\n")]],
    );
  });
});
