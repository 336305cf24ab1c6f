import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

function clientOf(server: SpawnedServer): Client<typeof FileTools> {
  return createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
}

// Two replicas on one root and one shared history folder: one appends with EditFile, the other
// rewrites the file's header with ApplyPatch. A patch staged from content an
// append has since extended must fail its guard, never drop the append.
describe("two server processes: ApplyPatch against EditFile appends", () => {
  let root: string;
  let a: SpawnedServer;
  let b: SpawnedServer;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), "toolhost-replicas-patch-"));
    const historyDir = await mkdtemp(path.join(tmpdir(), "toolhost-replicas-history-"));
    [a, b] = await Promise.all([
      spawnServer(["--root", root, "--history-dir", historyDir]),
      spawnServer(["--root", root, "--history-dir", historyDir]),
    ]);
  });
  after(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  it("loses no acknowledged append", { timeout: 60_000 }, async () => {
    await writeFile(path.join(root, "shared.txt"), "header 0\n");
    const appender = clientOf(a);
    const patcher = clientOf(b);
    const acknowledged: string[] = [];
    let patched = 0;
    let patchesDone = false;
    // Bounded by work, not time: the appends run until the patches are done, and the patches
    // until six got through beside at least 21 acknowledged appends (the test's timeout guards).
    const appends = (async () => {
      for (let i = 0; i < 20_000 && !patchesDone; i++) {
        const line = `append ${i}\n`;
        await appender.editFile({ path: "shared.txt", edits: [{ kind: { case: "append", value: { text: line } } }] });
        acknowledged.push(line);
      }
    })();
    const patches = (async () => {
      for (let i = 0; i < 20_000 && (patched <= 5 || acknowledged.length <= 20); i++) {
        const header = (await readFile(path.join(root, "shared.txt"), "utf8")).split("\n")[0]!;
        const ok = await patcher
          .applyPatch({
            patch: `*** Begin Patch\n*** Update File: shared.txt\n@@\n-${header}\n+header ${i + 1}\n*** End Patch`,
          })
          .then(
            () => true,
            () => false,
          );
        if (ok) patched++;
      }
      patchesDone = true;
    })();
    await Promise.all([appends, patches]);
    const text = await readFile(path.join(root, "shared.txt"), "utf8");
    const lost = acknowledged.filter((line) => !text.includes(line));
    assert.ok(acknowledged.length > 20 && patched > 5, `${acknowledged.length} appends, ${patched} patches`);
    assert.deepEqual(lost, [], "every acknowledged append is in the file");
    assert.deepEqual(
      (await readdir(root)).filter((n) => n.startsWith(tempFilePrefix)),
      [],
    );
  });
});
