import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { releaseChunk } from "../../src/files/read/chunk-buffers.js";
import { ByteGate, readAheadGate } from "../../src/files/read/read-memory-budget.js";
import { readRange } from "../../src/files/read/read-range.js";

describe("read memory across concurrent reads", () => {
  it("reads ahead at most readAheadGate.bound bytes across 64 stalled readers, and each still gets its whole file", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "read-ahead-"));
    try {
      const content = randomBytes(4 * 1024 * 1024 + 123);
      const file = path.join(dir, "f.bin");
      await writeFile(file, content);
      const chunkSize = 1024 * 1024;
      const handles = await Promise.all(Array.from({ length: 64 }, () => open(file, "r")));
      try {
        const readers = handles.map((h) => readRange(h, 0, undefined, chunkSize));
        // Every reader takes its first chunk and then stalls, as a stream waiting for room on
        // its connection does: only the read-ahead gate decides how many read their next one.
        const firsts = await Promise.all(readers.map((r) => r.next()));
        assert.equal(readAheadGate.heldBytes, readAheadGate.bound, "reads ahead up to the bound, no further");
        assert.equal(Math.floor(readAheadGate.bound / chunkSize), 16);
        const digests = await Promise.all(
          readers.map(async (reader, i) => {
            const hash = createHash("sha256");
            const first = firsts[i]!.value as Uint8Array;
            hash.update(first);
            releaseChunk(first);
            for await (const chunk of reader) {
              hash.update(chunk);
              releaseChunk(chunk);
            }
            return hash.digest("hex");
          }),
        );
        const expected = createHash("sha256").update(content).digest("hex");
        assert.deepEqual(new Set(digests), new Set([expected]));
        assert.equal(readAheadGate.heldBytes, 0, "every read-ahead given back");
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("ByteGate makes a taker wait until bytes are given back, and always admits one request when empty", async () => {
    const gate = new ByteGate(100);
    assert.equal(gate.tryTake(500), true, "an empty gate takes one request of any size");
    assert.equal(gate.tryTake(1), false);
    let taken = false;
    const waiting = gate.take(60).then(() => (taken = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(taken, false, "waits while the gate is over its bound");
    gate.give(500);
    await waiting;
    assert.equal(taken, true);
    assert.equal(gate.heldBytes, 60);
  });
});
