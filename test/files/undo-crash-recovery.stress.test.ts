import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { reasonOf } from "../support/call-outcome.js";

// Found by the review of the undo model: an undo of several paths (a move: move back, then
// put back what the move replaced at the target; a patch: one file after another) is steps with
// no record until all are done. A real server SIGKILLed between the steps leaves the paths half
// undone, and nothing at the next start or in the next undo finishes or reverts it: the history
// still shows the change as the last of both paths, UndoLastChange refuses at every one of them
// (PRECONDITION_FAILED, "nothing was changed"), and the target of a move stays empty until the
// caller finds the content in ListFileHistory and restores it by hand. No content is lost (it is
// in the store), which the test checks too.
//
// The kill is placed by what the server does, not by time: as soon as the first step's effect is
// on disk, while the next step writes a large content back.

const large = Buffer.alloc(24 * 1024 * 1024, "L");

/** untilOnDisk polls (without yielding to timers) until `seen` holds, then SIGKILLs the server. */
async function killWhen(server: SpawnedServer, seen: () => boolean): Promise<boolean> {
  for (let i = 0; i < 2_000_000; i++) {
    if (seen()) {
      server.kill("SIGKILL");
      return true;
    }
    if (i % 100 === 0) await new Promise((r) => setImmediate(r));
  }
  return false;
}

async function serve(
  root: string,
  historyDir: string,
  config: string,
): Promise<{ server: SpawnedServer; files: Client<typeof FileTools> }> {
  const server = await spawnServer(["--config", config, "--root", root, "--history-dir", historyDir]);
  return { server, files: createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` })) };
}

async function fixture(): Promise<{ root: string; historyDir: string; config: string }> {
  const root = await mkdtemp(join(tmpdir(), "toolhost-review-crash-root-"));
  const historyDir = await mkdtemp(join(tmpdir(), "toolhost-review-crash-history-"));
  const config = join(historyDir, "..", `${historyDir.split("/").pop()}.yaml`);
  await writeFile(config, "history:\n  max_file_bytes: 33554432\n");
  return { root, historyDir, config };
}

describe("SIGKILL in the middle of an undo", () => {
  it("an undo of a move cut between its steps is finished or reverted by the next start or undo", {
    timeout: 120_000,
  }, async () => {
    const { root, historyDir, config } = await fixture();
    const small = "the moved file\n";
    let { server, files } = await serve(root, historyDir, config);
    try {
      await files.writeFile({ path: "a.txt", content: { case: "text", value: small } });
      await writeFile(join(root, "b.bin"), large); // made beside toolhost; the move captures it (under max_file_bytes)
      await files.moveFile({ from: "a.txt", to: "b.bin", overwrite: true });
      const undo = reasonOf(files.undoLastChange({ path: "b.bin" }));
      // Step 1 moved the file back to a.txt; step 2 writes 24 MiB back to b.bin: killed between.
      assert.ok(await killWhen(server, () => existsSync(join(root, "a.txt"))), "the undo moved the file back");
      await undo;
      await server.stop();
      ({ server, files } = await serve(root, historyDir, config));
      const retried = await reasonOf(files.undoLastChange({ path: "b.bin" }));
      const a = await readFile(join(root, "a.txt"), "utf8").catch(() => undefined);
      const b = await readFile(join(root, "b.bin")).then(
        (c) => (c.equals(large) ? "the large file" : c.toString("utf8")),
        () => undefined,
      );
      // Content is never lost: what the move replaced is still in the history.
      const restorable =
        (await files.listFileHistory({ path: "b.bin", limit: 1 })).changes[0]?.sha256Before === sha256Hex(large);
      assert.ok(restorable, "the large file is still in b.bin's history");
      const consistent = (a === small && b === "the large file") || (a === undefined && b === small);
      assert.ok(
        consistent,
        `after the restart and an undo at b.bin (${retried}): a.txt holds ${JSON.stringify(a)}, b.bin holds ${JSON.stringify(b)}`,
      );
    } finally {
      await server.stop();
      for (const dir of [root, historyDir, config]) await rm(dir, { recursive: true, force: true });
    }
  });

  it("an undo of a patch cut between its files is finished or reverted by the next start or undo", {
    timeout: 120_000,
  }, async () => {
    const { root, historyDir, config } = await fixture();
    let { server, files } = await serve(root, historyDir, config);
    try {
      await files.writeFile({ path: "p1.txt", content: { case: "text", value: "one\n" } });
      await writeFile(join(root, "p2.txt"), Buffer.concat([large, Buffer.from("\ntwo\n")]));
      const patch =
        "*** Begin Patch\n*** Update File: p1.txt\n@@\n-one\n+ONE\n*** Update File: p2.txt\n@@\n-two\n+TWO\n*** End Patch";
      await files.applyPatch({ patch });
      const undo = reasonOf(files.undoLastChange({ path: "p1.txt" }));
      assert.ok(
        await killWhen(server, () => readFileSync(join(root, "p1.txt"), "utf8") === "one\n"),
        "the undo put p1.txt back",
      );
      await undo;
      await server.stop();
      ({ server, files } = await serve(root, historyDir, config));
      const retried = await reasonOf(files.undoLastChange({ path: "p1.txt" }));
      const p1 = await readFile(join(root, "p1.txt"), "utf8");
      const p2 = (await readFile(join(root, "p2.txt"))).subarray(large.length).toString("utf8");
      const consistent = (p1 === "one\n" && p2 === "\ntwo\n") || (p1 === "ONE\n" && p2 === "\nTWO\n");
      assert.ok(
        consistent,
        `after the restart and an undo at p1.txt (${retried}): p1.txt holds ${JSON.stringify(p1)}, p2.txt ends ${JSON.stringify(p2)}`,
      );
    } finally {
      await server.stop();
      for (const dir of [root, historyDir, config]) await rm(dir, { recursive: true, force: true });
    }
  });
});
