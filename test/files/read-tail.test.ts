import assert from "node:assert/strict";
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { collect, limitsWith, readRoot } from "./read-helpers.js";

const lines = (n: number, from = 0): string => Array.from({ length: n }, (_, i) => `line ${from + i}\n`).join("");

async function reasonOf(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => assert.fail("should have failed"),
    (e: unknown) => e,
  );
  assert.ok(isToolhostError(err), String(err));
  return `${err.reason}: ${err.message}`;
}

describe("ReadFile tail_lines", () => {
  it("returns the last N lines, across chunk boundaries, with or without a final newline", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "log.txt"), lines(10_000));
    const tail = await collect(
      sandbox,
      { path: "log.txt", mode: "text", tailLines: 3, chunkSize: 4096 },
      limitsWith({ minChunkSize: 16 }),
    );
    assert.equal(tail.text, lines(3, 9997));
    assert.equal(tail.summary.linesSent, 3);
    assert.equal(tail.summary.eof, true);
    assert.equal(tail.summary.nextOffset, 0);
    const small = await collect(
      sandbox,
      { path: "log.txt", mode: "text", tailLines: 500, chunkSize: 16 },
      limitsWith({ minChunkSize: 16 }),
    );
    assert.equal(small.text, lines(500, 9500));
    await writeFile(path.join(root, "open.txt"), "a\nb\nc");
    assert.equal((await collect(sandbox, { path: "open.txt", mode: "text", tailLines: 2 })).text, "b\nc");
    assert.equal((await collect(sandbox, { path: "open.txt", mode: "text", tailLines: 99 })).text, "a\nb\nc");
  });

  it("strips a BOM and returns empty for an empty file", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "bom.txt"), "\uFEFFone\ntwo\n");
    await writeFile(path.join(root, "empty.txt"), "");
    assert.equal((await collect(sandbox, { path: "bom.txt", mode: "text", tailLines: 5 })).text, "one\ntwo\n");
    assert.equal((await collect(sandbox, { path: "empty.txt", mode: "text", tailLines: 5 })).text, "");
  });

  it("reads only the end of a huge sparse file", async () => {
    const { root, sandbox } = await readRoot();
    const file = path.join(root, "huge.log");
    const handle = await open(file, "w");
    await handle.write(
      Buffer.from("a text header, then a hole: the content sniffing reads only this\n".repeat(200)),
      0,
      undefined,
      0,
    );
    await handle.write(Buffer.from(lines(200)), 0, undefined, 1024 ** 3); // 1 GiB hole, then lines
    await handle.close();
    const tail = await collect(sandbox, { path: "huge.log", mode: "text", tailLines: 100 });
    assert.equal(tail.text, lines(100, 100));
  });

  it("refuses bytes mode, a line range beside it, and a tail over max_text_bytes", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "one-line.txt"), "x".repeat(100_000) + "\n");
    assert.match(
      await reasonOf(collect(sandbox, { path: "one-line.txt", mode: "bytes", tailLines: 1 })),
      /^INVALID_ARGUMENT: tail_lines .*text mode/,
    );
    assert.match(
      await reasonOf(collect(sandbox, { path: "one-line.txt", mode: "text", tailLines: 1, offset: 2 })),
      /^INVALID_ARGUMENT: tail_lines cannot be combined/,
    );
    assert.match(
      await reasonOf(
        collect(
          sandbox,
          { path: "one-line.txt", mode: "text", tailLines: 1 },
          limitsWith({ maxTextBytes: 1000, minChunkSize: 16, chunkSize: 256 }),
        ),
      ),
      /^TOO_LARGE: The requested lines/,
    );
  });
});
