import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { allocateChunk, claimChunk, releaseChunk, releaseChunkMemory } from "../../src/files/read/chunk-buffers.js";
import type { NormalizedReadRequest } from "../../src/files/read/normalize-read-request.js";
import { readBytes } from "../../src/files/read/read-bytes.js";
import { readBufferBudget } from "../../src/files/read/read-memory-budget.js";
import type { ReadableFile } from "../../src/sandbox/sandbox.js";

/**
 * Many concurrent byte reads of distinct files through the shared chunk pool and the read-buffer
 * budget, with a fake transport that claims each chunk, copies its bytes only at a later "flush"
 * (as node:http2 reads them when the socket takes them) and releases it then, or lets a failed
 * write's chunk go without reuse; random cancellations; upload-like messages of odd sizes churning
 * the pool through releaseChunkMemory. Any chunk memory handed out again while still referenced
 * shows up as a wrong byte or sha256; any share never given back shows up as bytes still held.
 */

const chunkSize = 64 * 1024;
const reads = 48;
const rounds = 3;

const tick = () => new Promise((resolve) => setImmediate(resolve));
const later = async (turns: number) => {
  for (let i = 0; i < turns; i++) await tick();
};

function request(name: string): NormalizedReadRequest {
  return {
    path: name,
    mode: "bytes",
    offset: 0,
    limit: undefined,
    byteOffset: 0,
    byteLimit: undefined,
    chunkSize,
    tailLines: undefined,
    page: undefined,
  };
}

async function churnUploads(stop: { done: boolean }): Promise<void> {
  while (!stop.done) {
    const length = 64 * 1024 + 1 + Math.floor(Math.random() * 4096);
    const message = allocateChunk(length);
    message.fill(0xee);
    await later(1 + Math.floor(Math.random() * 3));
    releaseChunkMemory(message.subarray(7, 7 + 1000));
  }
}

interface Outcome {
  readonly cancelled: boolean;
  /** check compares what the read got with the file, once every read of the round is done. */
  readonly check: () => void;
}

async function oneRead(file: string, content: Buffer): Promise<Outcome> {
  const handle = await open(file, "r");
  const stats = await handle.stat();
  const readable = { handle, stats, resolved: {} } as unknown as ReadableFile;
  const controller = new AbortController();
  const cancelAt = Math.random() < 0.3 ? Math.floor(Math.random() * (content.length / chunkSize)) : -1;
  const received: Buffer[] = [];
  // A third of the reads keep their chunks' views (as a tool collecting a result does): their
  // memory must never be handed out again, checked once every read is done.
  const keeps = Math.random() < 1 / 3;
  const kept: Uint8Array[] = [];
  const flushes: Array<Promise<void>> = [];
  let sha256: string | undefined;
  let chunks = 0;
  try {
    for await (const part of readBytes(readable, request(file), controller.signal)) {
      if (part.case === "summary") {
        sha256 = part.value.sha256;
        continue;
      }
      if (part.case !== "data") continue;
      const chunk = part.value;
      if (keeps) {
        kept.push(chunk);
        if (++chunks === cancelAt) controller.abort(new Error("cancelled"));
        continue;
      }
      const at = received.length;
      received.push(Buffer.alloc(0));
      claimChunk(chunk);
      const fail = Math.random() < 0.05;
      // The "socket" copies the bytes only when it flushes them, a few turns later.
      flushes.push(
        later(1 + Math.floor(Math.random() * 6)).then(() => {
          received[at] = Buffer.from(chunk);
          releaseChunk(chunk, !fail);
        }),
      );
      if (++chunks === cancelAt) controller.abort(new Error("cancelled"));
    }
  } catch (err) {
    assert.ok(controller.signal.aborted, `only a cancelled read fails: ${String(err)}`);
  } finally {
    await Promise.all(flushes);
    await handle.close();
  }
  const check = () => {
    const got = Buffer.concat(keeps ? kept : received);
    assert.ok(content.subarray(0, got.length).equals(got), `${file}: every byte received or kept is the file's`);
    if (!controller.signal.aborted) {
      assert.equal(got.length, content.length, `${file}: all bytes`);
      assert.equal(sha256, createHash("sha256").update(content).digest("hex"), `${file}: sha256`);
    }
  };
  return { cancelled: controller.signal.aborted, check };
}

describe("concurrent byte reads through the chunk pool and the read-buffer budget", () => {
  it("never hands out chunk memory still referenced, and gives every share back", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "read-reuse-"));
    try {
      const files: Array<{ file: string; content: Buffer }> = [];
      for (let i = 0; i < reads; i++) {
        const content = randomBytes(chunkSize * (2 + (i % 9)) + ((i * 977) % chunkSize));
        const file = path.join(dir, `f${i}.bin`);
        await writeFile(file, content);
        files.push({ file, content });
      }
      for (let round = 0; round < rounds; round++) {
        const stop = { done: false };
        const churn = [churnUploads(stop), churnUploads(stop)];
        const outcomes = await Promise.all(files.map((f) => oneRead(f.file, f.content)));
        stop.done = true;
        await Promise.all(churn);
        await later(20);
        for (const outcome of outcomes) outcome.check();
        assert.ok(outcomes.some((o) => !o.cancelled));
        assert.equal(readBufferBudget.heldBytes, 0, "every chunk's bytes were given back");
        assert.equal(readBufferBudget.openReads, 0, "every read closed its share");
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
