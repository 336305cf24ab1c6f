import assert from "node:assert/strict";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { sha256Hex } from "../../../src/files/content-hash.js";
import { isTempFileName } from "../../../src/files/write/temp-files.js";
import { spawnServer } from "../../support/spawn-server.js";
import { scratchDir } from "../write-fixtures.js";

// Issue 27, finding #10 (stress tier): a real toolhost process is SIGKILLed in the middle of a
// recursive CopyFile of a large tree, at a different point of the copy each round (after the
// staging folder holds `killAfter` entries); a restarted server's start-up sweep must leave no
// staging entry anywhere in the root, no half copy at the target, and the source as it was.
// Bounded by rounds and by entries copied, not by time (the waits are hang guards only).

const folders = 24;
const filesPerFolder = 100;
const fileBytes = 24 * 1024;
const killAfter = [5, 300, 1500];

/** tree writes src/ (folders x files, each file's bytes its own) and returns every file's hash. */
async function tree(root: string): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (let f = 0; f < folders; f++) {
    const dir = path.join(root, "src", `folder-${f}`, "inner");
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < filesPerFolder; i++) {
      const content = Buffer.alloc(fileBytes, `${f}/${i} `);
      const rel = path.join("src", `folder-${f}`, "inner", `file-${i}.bin`);
      await writeFile(path.join(root, rel), content);
      hashes.set(rel, sha256Hex(content));
    }
  }
  return hashes;
}

/** stagedEntries lists every entry under `root` with a temporary-file name, and what is below them. */
async function stagedEntries(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).filter((rel) => rel.split(path.sep).some(isTempFileName));
}

async function waitFor(what: string, check: () => Promise<boolean>, hangGuardMs = 120_000): Promise<void> {
  const deadline = Date.now() + hangGuardMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`hang guard: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("a server killed mid recursive CopyFile (issue 27, #10, stress)", () => {
  it(`leaves nothing staged after a restart, and the source intact (${killAfter.length} rounds)`, {
    timeout: 900_000,
  }, async () => {
    const root = await scratchDir("copy-crash-");
    const hashes = await tree(root);
    for (const [round, entries] of killAfter.entries()) {
      const server = await spawnServer(["--root", root]);
      const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
      const target = `copy-${round}`;
      const copying = client.copyFile({ from: "src", to: target, recursive: true }).then(
        () => "finished",
        () => "cut off",
      );
      // The event itself: the staging folder beside the target holds `entries` entries.
      await waitFor(
        `a staging folder with ${entries} entries`,
        async () => (await stagedEntries(root)).length >= entries,
      );
      server.kill("SIGKILL");
      await server.stop();
      assert.equal(await copying, "cut off", `round ${round}: the copy was cut off by the kill`);
      assert.ok((await stagedEntries(root)).length >= entries, `round ${round}: the kill left a staging folder`);
      assert.equal(
        await stat(path.join(root, target)).catch(() => undefined),
        undefined,
        `round ${round}: no half copy at the target`,
      );

      const restarted = await spawnServer(["--root", root]); // the start-up sweep runs before it listens
      try {
        assert.deepEqual(await stagedEntries(root), [], `round ${round}: the restart swept every staging entry`);
        const swept = restarted.lines.some((line) => line.includes("removed stale temporary files"));
        assert.ok(swept, `round ${round}: the sweep said what it removed`);
      } finally {
        await restarted.stop();
      }
    }
    for (const [rel, sha256] of hashes)
      assert.equal(sha256Hex(await readFile(path.join(root, rel))), sha256, `${rel} intact`);
    assert.equal((await readdir(path.join(root, "src"))).length, folders);
    assert.deepEqual((await readdir(root)).sort(), ["src"], "nothing but the source left in the root");
  });
});
