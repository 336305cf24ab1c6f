import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import type { ReadFilesResponse } from "../../gen/ts/toolhost/files/v1/read_files_pb.js";
import { startTestServer } from "../support/test-server.js";
import { failureOf } from "./write-fixtures.js";

/** byFile groups a ReadFiles stream per index: the parts' cases and the content joined. */
function byFile(messages: ReadFilesResponse[]): Map<number, { cases: string[]; content: string; error?: string }> {
  const out = new Map<number, { cases: string[]; content: string; error?: string }>();
  for (const m of messages) {
    const entry = out.get(m.index) ?? { cases: [], content: "" };
    entry.cases.push(m.part.case ?? "none");
    if (m.part.case === "text") entry.content += m.part.value;
    if (m.part.case === "data") entry.content += Buffer.from(m.part.value).toString("latin1");
    if (m.part.case === "error") entry.error = `${m.part.value.reason} ${m.part.value.code}: ${m.part.value.message}`;
    out.set(m.index, entry);
  }
  return out;
}

async function all<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const m of stream) out.push(m);
  return out;
}

describe("ReadFiles", () => {
  // Each file with its own mode, range or tail, each failure on its own with its reason, in request
  // order and naming its path, is features/read-files.feature's first scenario.
  it("streams each file in chunks, one file after another, never a whole file in one message", async () => {
    const server = await startTestServer();
    try {
      await writeFile(path.join(server.root, "big.bin"), Buffer.alloc(8 * 1024 * 1024, 1));
      await writeFile(path.join(server.root, "small.txt"), "s");
      const messages = await all(
        server.fileTools.readFiles({
          files: [{ path: "big.bin", mode: ReadMode.BYTES, chunkSize: 65536 }, { path: "small.txt" }],
        }),
      );
      const big = messages.filter((m) => m.index === 0 && m.part.case === "data");
      assert.equal(big.length, 128, "8 MiB in 64 KiB chunks");
      assert.ok(big.every((m) => m.part.case === "data" && m.part.value.length <= 65536));
      assert.deepEqual(
        messages.map((m) => m.index),
        [...Array(130).fill(0), 1, 1, 1],
        "files do not interleave",
      );
    } finally {
      await server.close();
    }
  });

  it("bounds the file count and the total bytes of one call", async () => {
    const server = await startTestServer({ limits: { maxReadFiles: 3, maxReadFilesBytes: 10_000 } });
    try {
      await writeFile(path.join(server.root, "4k.txt"), "x".repeat(4096));
      const tooMany = await failureOf(
        all(server.fileTools.readFiles({ files: [{ path: "a" }, { path: "b" }, { path: "c" }, { path: "d" }] })),
      );
      assert.equal(tooMany.code, Code.InvalidArgument);
      assert.match(tooMany.message, /4 files, over the server's max_read_files of 3/);
      const files = byFile(
        await all(server.fileTools.readFiles({ files: [{ path: "4k.txt" }, { path: "4k.txt" }, { path: "4k.txt" }] })),
      );
      assert.equal(files.get(0)?.content.length, 4096);
      assert.equal(files.get(1)?.content.length, 4096);
      assert.match(
        files.get(2)?.error ?? "",
        /^TOO_LARGE RESOURCE_EXHAUSTED: .*1808 of max_read_files_bytes 10000 left/,
      );
      assert.deepEqual(files.get(2)?.cases, ["error"], "refused before any content");
    } finally {
      await server.close();
    }
  });
});
