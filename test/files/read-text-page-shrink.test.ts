import assert from "node:assert/strict";
import { truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { readChunks, type ReadPart } from "../../src/files/read/read-chunks.js";
import type { TextPage } from "../../src/files/read/text-page.js";
import { limitsWith, readRoot } from "./read-helpers.js";

// A page its collector would cut is read without a hash (text-page.ts): if the file shrinks
// while the page is read, the stream reaches its summary after all, and must not report the
// end of the file with no sha256 (ReadSummary.sha256 is the hash of the bytes sent).
describe("readText as a page of a file that shrinks while it is read", () => {
  it("answers FILE_CHANGED, not eof with an empty sha256", async () => {
    const { root, sandbox } = await readRoot();
    const file = path.join(root, "s.txt");
    await writeFile(file, `${"x".repeat(99)}\n`.repeat(4000)); // 400 KB, several 64 KiB chunks
    const page: TextPage = { start: undefined, collectBytes: 100 * 1024 };
    const parts: ReadPart[] = [];
    let failure: unknown;
    try {
      for await (const part of readChunks(
        sandbox,
        { path: "s.txt", mode: "text", offset: 0, chunkSize: 64 * 1024, page },
        limitsWith({}),
      )) {
        parts.push(part);
        // The span is fixed at open (400 KB); the file shrinks to 1 KB before its bytes are read.
        if (part.case === "info") await truncate(file, 1000);
      }
    } catch (err) {
      failure = err;
    }
    const summary = parts.find((p) => p.case === "summary");
    assert.equal(summary, undefined, `summary sent: ${JSON.stringify(summary?.value)}`);
    assert.equal((failure as { reason?: string } | undefined)?.reason, "FILE_CHANGED");
    assert.equal(
      (failure as Error).message,
      '"s.txt" shrank while it was being read (only 1000 of the 102401 bytes to read were there); read it again.',
    );
  });
});
