import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/test-server.js";

const regrow = `
import os, sys, time
p, limit = sys.argv[1], time.time() + float(sys.argv[2])
f = open(p, "r+b")
n = 0
print("ready", flush=True)
while time.time() < limit:
    f.truncate(0); f.seek(0); f.write(b"x" * 262144); f.flush(); n += 1
print(n, flush=True)
`;

// The history captures a file's content before each change, after checking its size against
// history.max_file_bytes; the same goes for the files a patch reads against the edit limit. The
// size came from the stat and the read went on to the end, so a file grown between the two (by
// anyone who can write in the root) was read whole: a blob far over the bound, or, for a file
// grown to gigabytes, the process out of memory.
describe("a file that grows between its size check and its read", () => {
  let server: TestServer;
  let historyDir: string;
  before(async () => {
    historyDir = await mkdtemp(join(tmpdir(), "toolhost-history-grow-"));
    server = await startTestServer({ history: { dir: historyDir, maxFileBytes: 1024 } });
  });
  after(() => server.close());

  it("is never captured past history.max_file_bytes", async () => {
    const file = join(server.root, "grow.txt");
    await writeFile(file, "");
    const child = spawn("python3", ["-c", regrow, file, "20"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const exited = once(child, "exit");
    while (!out.includes("ready")) await new Promise((r) => setTimeout(r, 10));
    const until = Date.now() + 2_000;
    try {
      for (let i = 0; i < 400 && Date.now() < until; i++) {
        await server.fileTools.writeFile({ path: "other.txt", content: { case: "text", value: String(i) } });
        await server.fileTools
          .editFile({ path: "grow.txt", edits: [{ kind: { case: "append", value: { text: "" } } }], dryRun: false })
          .catch(() => undefined);
        await server.fileTools.deleteFile({ path: "grow.txt", ifSha256: "0".repeat(64) }).catch(() => undefined);
      }
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
    let over = 0;
    for (const shard of await readdir(join(historyDir, "blobs")).catch(() => [] as string[])) {
      for (const name of await readdir(join(historyDir, "blobs", shard))) {
        if ((await stat(join(historyDir, "blobs", shard, name))).size > 1024) over++;
      }
    }
    assert.equal(over, 0, "blobs over max_file_bytes were stored");
  });
});
