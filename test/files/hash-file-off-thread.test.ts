import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, openSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { hashFileOffThread, stopHashWorkerForTests } from "../../src/files/read/off-thread-hash.js";
import { scratchDir } from "./write-fixtures.js";

// hashFileOffThread: the hash worker reads and hashes a descriptor the caller holds open
// (previous-content-hash.ts hashes the file an upload replaces this way).

const MiB = 1024 * 1024;

async function withFile<T>(content: Buffer, use: (fd: number) => Promise<T>): Promise<T> {
  const file = path.join(await scratchDir("hash-file-"), "f.bin");
  writeFileSync(file, content);
  const fd = openSync(file, "r");
  try {
    return await use(fd);
  } finally {
    closeSync(fd);
  }
}

describe("hashFileOffThread", () => {
  it("gives the sha256 of the whole file, over several pieces and of an empty one", async () => {
    const content = randomBytes(2 * MiB + 12_345);
    const hex = await withFile(content, (fd) => hashFileOffThread(fd, new AbortController().signal));
    assert.equal(hex, createHash("sha256").update(content).digest("hex"));
    const empty = await withFile(Buffer.alloc(0), (fd) => hashFileOffThread(fd, new AbortController().signal));
    assert.equal(empty, createHash("sha256").digest("hex"));
  });

  it("answers undefined once aborted, before or while it reads", async () => {
    const content = randomBytes(8 * MiB);
    const before = new AbortController();
    before.abort();
    assert.equal(await withFile(content, (fd) => hashFileOffThread(fd, before.signal)), undefined);
    const during = new AbortController();
    const hex = await withFile(content, (fd) => {
      const hashing = hashFileOffThread(fd, during.signal);
      during.abort();
      return hashing;
    });
    assert.equal(hex, undefined);
  });

  it("fails with the read's error code for a descriptor it cannot read", async () => {
    const dir = await scratchDir("hash-file-dir-");
    const fd = openSync(dir, "r");
    try {
      await assert.rejects(hashFileOffThread(fd, new AbortController().signal), { code: "EISDIR" });
    } finally {
      closeSync(fd);
    }
  });

  it("fails HASH_FAILED when the worker stops while it hashes, and the next hash works", async () => {
    // A FIFO with a writer that sends nothing: the worker's read waits until the writer closes,
    // so the hash is surely in progress when the worker stops.
    const fifo = path.join(await scratchDir("hash-file-fifo-"), "fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = openSync(fifo, "r+");
    const reader = openSync(fifo, "r");
    try {
      const hashing = hashFileOffThread(reader, new AbortController().signal);
      assert.equal(await stopHashWorkerForTests(), 1, "the file hash was in progress on the worker");
      await assert.rejects(hashing, { reason: "HASH_FAILED" });
    } finally {
      closeSync(writer); // the stopped worker's read ends (end of file)
    }
    const small = randomBytes(1000);
    const hex = await withFile(small, (fd) => hashFileOffThread(fd, new AbortController().signal));
    assert.equal(hex, createHash("sha256").update(small).digest("hex"));
    closeSync(reader);
  });
});
