import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import {
  allocateChunk,
  chunkHeadroom,
  headroomOf,
  maxFreeBytes,
  releaseChunk,
  releaseChunkMemory,
  retainChunk,
  trimChunk,
} from "../../src/files/read/chunk-buffers.js";
import { OffThreadSha256 } from "../../src/files/read/off-thread-hash.js";

describe("chunk buffers", () => {
  it("gives headroom only to chunks it allocated, and keeps it on a trimmed chunk", () => {
    const chunk = allocateChunk(100_000);
    assert.equal(headroomOf(chunk), chunkHeadroom);
    assert.equal(headroomOf(trimChunk(chunk, 10)), chunkHeadroom);
    assert.equal(headroomOf(Buffer.alloc(100_000)), 0);
    assert.equal(headroomOf(chunk.subarray(1)), 0);
  });

  it("reuses memory only once every holder has released it", () => {
    const size = 123_457; // a size no other test uses, so the pool holds nothing of it yet
    const first = allocateChunk(size);
    retainChunk(first); // e.g. the hash worker
    releaseChunk(first); // the transport is done; the hash is not
    const second = allocateChunk(size);
    assert.notEqual(second.buffer, first.buffer, "a chunk still held was handed out again");
    releaseChunk(first); // the hash is done too
    const third = allocateChunk(size);
    assert.equal(third.buffer, first.buffer, "released memory is reused");
    releaseChunk(third);
    releaseChunk(third); // a second release of the same chunk changes nothing
    const fourth = allocateChunk(size);
    const fifth = allocateChunk(size);
    assert.notEqual(fourth.buffer, fifth.buffer);
  });

  it("takes back a chunk's memory through any view into it, once, and no other memory", () => {
    const size = 123_461; // a size no other test uses
    const message = allocateChunk(size);
    const field = message.subarray(4, 100); // e.g. a bytes field decoded from the message
    releaseChunkMemory(field);
    const again = allocateChunk(size);
    assert.equal(again.buffer, message.buffer, "released memory is reused");
    releaseChunkMemory(Buffer.alloc(size)); // not a chunk's: nothing happens
    releaseChunkMemory(new Uint8Array(new SharedArrayBuffer(size)));
    const other = allocateChunk(size);
    assert.notEqual(other.buffer, again.buffer, "memory still held was handed out again");
    releaseChunkMemory(again.subarray(1));
    releaseChunkMemory(again.subarray(2)); // a second release changes nothing
    const third = allocateChunk(size);
    const fourth = allocateChunk(size);
    assert.equal(third.buffer, again.buffer);
    assert.notEqual(fourth.buffer, third.buffer);
  });
});

describe("OffThreadSha256", () => {
  it("hashes shared chunks on the worker, in order, to the same digest as createHash", async () => {
    const parts = [randomBytes(70_000), randomBytes(1), randomBytes(300_000), randomBytes(65_536)];
    const hash = new OffThreadSha256();
    const pending: Array<Promise<void> | undefined> = [];
    for (const part of parts) {
      const shared = allocateChunk(part.byteLength);
      shared.set(part);
      pending.push(hash.update(shared));
    }
    assert.ok(pending[0] !== undefined, "a shared chunk goes to the worker");
    await Promise.all(pending);
    const expected = createHash("sha256");
    for (const part of parts) expected.update(part);
    assert.equal(await hash.digest(), expected.digest("hex"));
  });

  it("mixes plain and shared chunks without changing the digest", async () => {
    const shared = allocateChunk(100_000);
    shared.fill(1);
    const plain = Buffer.alloc(5000, 2);
    const hash = new OffThreadSha256();
    await hash.update(shared);
    await hash.update(plain);
    assert.equal(await hash.digest(), createHash("sha256").update(shared).update(plain).digest("hex"));
    const local = new OffThreadSha256(false);
    assert.equal(local.update(shared), undefined, "offThread false hashes on this thread");
    assert.equal(await local.digest(), createHash("sha256").update(shared).digest("hex"));
  });
});

describe("chunk pool", () => {
  it("keeps a burst of released chunks up to maxFreeBytes and hands the same memory out again", () => {
    const size = 1024 * 1024 + 7; // a size no other test uses
    const count = Math.floor(maxFreeBytes / (size + chunkHeadroom));
    assert.ok(count > 16, "the pool holds more than the 16 MiB that dropped bursts of 16 concurrent reads");
    const first = Array.from({ length: count }, () => allocateChunk(size));
    for (const chunk of first) releaseChunk(chunk);
    const again = Array.from({ length: count }, () => allocateChunk(size));
    const before = new Set(first.map((c) => c.buffer));
    assert.equal(again.filter((c) => before.has(c.buffer)).length, count, "every released buffer is reused");
    for (const chunk of again) releaseChunk(chunk);
    // One more than the pool holds: that buffer is let go, not kept.
    const over = Array.from({ length: count + 1 }, () => allocateChunk(size));
    for (const chunk of over) releaseChunk(chunk);
    const last = Array.from({ length: count + 1 }, () => allocateChunk(size));
    const kept = new Set(over.map((c) => c.buffer));
    assert.equal(last.filter((c) => kept.has(c.buffer)).length, count);
    for (const chunk of last) releaseChunk(chunk);
  });
});
