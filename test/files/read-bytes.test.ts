import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { defaultLimits } from "../../src/config/config.js";
import { readChunks } from "../../src/files/read/read-chunks.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { expectToolhostError, snapshotTree } from "../sandbox/sandbox-fixture.js";
import { collect, limitsWith, readRoot, sha256 } from "./read-helpers.js";

/** A file of random bytes, NULs included: bytes mode must not care. */
async function binaryFile(size: number): Promise<{ sandbox: Sandbox; root: string; content: Buffer }> {
  const { root, sandbox } = await readRoot();
  const content = randomBytes(size);
  await writeFile(path.join(root, "blob.bin"), content);
  return { root, sandbox, content };
}

/**
 * A sandbox whose opened handles record their reads and closing, to observe read-ahead and
 * cleanup from outside the reader.
 */
function instrumented(sandbox: Sandbox): { sandbox: Sandbox; reads: number[]; closed: () => boolean } {
  const reads: number[] = [];
  let closed = false;
  const wrapped: Sandbox = {
    ...sandbox,
    roots: sandbox.roots,
    contains: (p) => sandbox.contains(p),
    async openContent(clientPath) {
      const file = await sandbox.openContent(clientPath);
      const handle = new Proxy(file.handle, {
        get(target, prop, receiver) {
          if (prop === "read") {
            // The reader calls read(buffer, offset, length, position): record the position.
            return (...args: unknown[]) => {
              reads.push(args[3] as number);
              return (target.read as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          if (prop === "close") {
            return async () => {
              closed = true;
              await target.close();
            };
          }
          const value: unknown = Reflect.get(target, prop, receiver);
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { ...file, handle };
    },
  };
  return { sandbox: wrapped, reads, closed: () => closed };
}

describe("ReadFile bytes mode", () => {
  it("returns any file's bytes with info and summary", async () => {
    const { sandbox, content } = await binaryFile(100_000);
    const read = await collect(sandbox, { path: "blob.bin", mode: "bytes" });
    assert.deepEqual(read.data, content);
    assert.equal(read.info.encoding, "binary");
    assert.equal(read.info.mode, "bytes");
    assert.equal(read.info.size, 100_000);
    assert.deepEqual(read.summary, {
      bytesSent: 100_000,
      sha256: sha256(content),
      eof: true,
      linesSent: 0,
      nextOffset: 100_000,
      replacedSequences: 0,
    });
  });

  const ranges = [
    { byteOffset: 10, byteLimit: 20, eof: false },
    { byteOffset: 99_990, byteLimit: 100, eof: true },
    { byteOffset: 50_000, byteLimit: undefined, eof: true },
    { byteOffset: 100_000, byteLimit: undefined, eof: true },
    { byteOffset: 0, byteLimit: 0, eof: false },
  ];
  for (const r of ranges) {
    it(`byte_offset ${r.byteOffset} byte_limit ${String(r.byteLimit)} sends exactly that range and hashes it`, async () => {
      const { sandbox, content } = await binaryFile(100_000);
      const read = await collect(sandbox, {
        path: "blob.bin",
        mode: "bytes",
        byteOffset: r.byteOffset,
        byteLimit: r.byteLimit,
      });
      const expected = content.subarray(
        r.byteOffset,
        r.byteLimit === undefined ? undefined : r.byteOffset + r.byteLimit,
      );
      assert.deepEqual(read.data, expected);
      assert.equal(read.summary.bytesSent, expected.length);
      assert.equal(read.summary.sha256, sha256(expected));
      assert.equal(read.summary.nextOffset, r.byteOffset + expected.length);
      assert.equal(read.summary.eof, r.eof);
    });
  }

  it("refuses a byte_offset past the end with OUT_OF_RANGE", async () => {
    const { root, sandbox } = await binaryFile(1000);
    const before = await snapshotTree(root);
    await expectToolhostError(
      () => collect(sandbox, { path: "blob.bin", mode: "bytes", byteOffset: 1001 }),
      "OUT_OF_RANGE",
      ["byte_offset 1001", "past the end", "blob.bin", "1000 bytes"],
    );
    assert.deepEqual(await snapshotTree(root), before);
  });

  describe("chunk size", () => {
    const limits = limitsWith({ chunkSize: 8192, minChunkSize: 4096, maxChunkSize: 16384 });
    const cases = [
      { hint: undefined, size: 8192, why: "unset uses the default" },
      { hint: 0, size: 8192, why: "0 uses the default" },
      { hint: 5000, size: 5000, why: "a size in range is used" },
      { hint: 1, size: 4096, why: "too small is raised to the minimum" },
      { hint: 10_000_000, size: 16384, why: "too large is lowered to the maximum" },
    ];
    for (const c of cases) {
      it(`${c.why} (${String(c.hint)} -> ${c.size})`, async () => {
        const { sandbox, content } = await binaryFile(50_000);
        const read = await collect(sandbox, { path: "blob.bin", mode: "bytes", chunkSize: c.hint }, limits);
        const full = Math.floor(50_000 / c.size);
        assert.deepEqual(
          read.chunkSizes,
          [...Array<number>(full).fill(c.size), 50_000 - full * c.size].filter((n) => n > 0),
        );
        assert.deepEqual(read.data, content);
      });
    }
  });

  it("reads no more than one chunk ahead of a consumer that stops asking", async () => {
    const { sandbox: plain } = await binaryFile(1024 * 1024);
    const { sandbox, reads } = instrumented(plain);
    const stream = readChunks(sandbox, { path: "blob.bin", mode: "bytes", chunkSize: 4096 }, defaultLimits);
    assert.equal((await stream.next()).value?.case, "info");
    assert.equal((await stream.next()).value?.case, "data");
    await sleep(50); // give an eager reader every chance to run ahead
    assert.deepEqual(reads, [0, 4096], "the chunk sent and exactly one read-ahead");
    await stream.return(undefined);
  });

  it("closes the file when the consumer stops early", async () => {
    const { sandbox: plain } = await binaryFile(1024 * 1024);
    const { sandbox, closed } = instrumented(plain);
    const stream = readChunks(sandbox, { path: "blob.bin", mode: "bytes", chunkSize: 4096 }, defaultLimits);
    await stream.next();
    await stream.next();
    assert.equal(closed(), false);
    await stream.return(undefined);
    assert.equal(closed(), true);
  });

  it("stops with the abort reason and closes the file when the signal aborts", async () => {
    const { sandbox: plain } = await binaryFile(1024 * 1024);
    const { sandbox, closed } = instrumented(plain);
    const controller = new AbortController();
    const stream = readChunks(
      sandbox,
      { path: "blob.bin", mode: "bytes", chunkSize: 4096 },
      defaultLimits,
      controller.signal,
    );
    await stream.next();
    await stream.next();
    const reason = new Error("client went away");
    controller.abort(reason);
    await assert.rejects(stream.next(), (err) => err === reason);
    assert.equal(closed(), true);
  });

  it("does not open the file at all when the signal has already aborted", async () => {
    const { sandbox: plain } = await binaryFile(10);
    const { sandbox, reads } = instrumented(plain);
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    await assert.rejects(
      readChunks(sandbox, { path: "blob.bin", mode: "bytes" }, defaultLimits, controller.signal).next(),
      /too late/,
    );
    assert.deepEqual(reads, []);
  });
});
