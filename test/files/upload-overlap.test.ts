import assert from "node:assert/strict";
import { appendFile, readdir, readFile, rename, writeFile as fsWriteFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { handOver } from "../../src/files/read/off-thread-hash.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

const MiB = 1024 * 1024;

/** pieces returns `count` chunks of `size` bytes, each its own allocation, with distinct content. */
function pieces(count: number, size: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => Buffer.alloc(size, i + 1));
}

async function* yieldAll(chunks: Uint8Array[], between?: (index: number) => Promise<void>): AsyncGenerator<Uint8Array> {
  for (const [index, chunk] of chunks.entries()) {
    await between?.(index);
    yield chunk;
  }
}

/** slowDisk is the real filesystem with every write(2) taking `delayMs`, counting writes under way. */
function slowDisk(
  delayMs: number,
  failAt?: number,
): { ops: AtomicFsOps; inFlight: () => number; maxInFlight: () => number } {
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  const ops: AtomicFsOps = {
    ...nodeFsOps,
    write: async (handle, buffer, offset, length, position) => {
      const call = ++calls;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await sleep(call === failAt ? delayMs / 2 : delayMs);
        if (call === failAt) {
          throw Object.assign(new Error("injected"), { code: "EIO" });
        }
        return await nodeFsOps.write(handle, buffer, offset, length, position);
      } finally {
        inFlight--;
      }
    },
  };
  return { ops, inFlight: () => inFlight, maxInFlight: () => maxInFlight };
}

describe("uploadFile overlapping disk and network", () => {
  it("writes the next chunks while earlier ones are still on a slow disk, at most 4 MiB at once", async () => {
    const { root, sandbox } = await writeFixture();
    const data = pieces(12, MiB);
    const disk = slowDisk(20);
    const result = await uploadFile(sandbox, { path: "big.bin" }, yieldAll(data), { fsOps: disk.ops });
    const whole = Buffer.concat(data);
    assert.deepEqual(result, { created: true, size: 12 * MiB, sha256: sha256Hex(whole), previousSha256: "" });
    assert.ok((await readFile(path.join(root, "big.bin"))).equals(whole));
    assert.ok(disk.maxInFlight() >= 2, `writes overlapped: at most ${disk.maxInFlight()} at once`);
    assert.ok(disk.maxInFlight() <= 4, `at most 4 MiB in write(2), saw ${disk.maxInFlight()} 1 MiB writes at once`);
  });

  it("a failed write while others are under way changes nothing and leaves no write running", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "big.bin"), "old");
    const before = await snapshot(root);
    const disk = slowDisk(30, 3);
    await assert.rejects(
      uploadFile(sandbox, { path: "big.bin" }, yieldAll(pieces(8, MiB)), { fsOps: disk.ops }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "IO_ERROR"));
        assert.equal(err.message, "Cannot write 'big.bin': the filesystem failed (EIO).");
        assert.equal(disk.inFlight(), 0);
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("hashes handed-over chunks without copying them, and leaves other chunks intact", async () => {
    const { root, sandbox } = await writeFixture();
    const owned = pieces(3, MiB);
    owned.forEach((chunk) => handOver(chunk));
    const kept = pieces(3, MiB);
    // Handed over but sharing one allocation: moving one would take the other's bytes along.
    const joined = Buffer.alloc(2 * MiB, 7);
    const halves = [joined.subarray(0, MiB), joined.subarray(MiB)];
    halves.forEach((chunk) => handOver(chunk));
    const expected = Buffer.concat([...owned, ...kept, ...halves]);
    const result = await uploadFile(sandbox, { path: "mixed.bin" }, yieldAll([...owned, ...kept, ...halves]));
    assert.equal(result.sha256, sha256Hex(expected));
    assert.ok((await readFile(path.join(root, "mixed.bin"))).equals(expected));
    assert.deepEqual(
      owned.map((c) => c.byteLength),
      [0, 0, 0],
      "handed-over chunks were moved to the hash worker",
    );
    assert.deepEqual(
      kept.map((c) => c[0]),
      [1, 2, 3],
      "chunks not handed over keep their bytes",
    );
    assert.equal(joined.byteLength, 2 * MiB);
    assert.equal(joined[MiB], 7);
  });
});

describe("uploadFile previous_sha256", () => {
  it("is the hash of the file replaced when it has not changed during the upload", async () => {
    const { root, sandbox } = await writeFixture();
    const old = Buffer.alloc(3 * MiB, "o");
    await fsWriteFile(path.join(root, "f.bin"), old);
    await sleep(150); // Settled: the hash taken while the bytes arrive is the one used.
    const result = await uploadFile(
      sandbox,
      { path: "f.bin" },
      yieldAll(pieces(2, MiB), () => sleep(20)),
    );
    assert.equal(result.previousSha256, sha256Hex(old));
    assert.equal(result.created, false);
  });

  it("is the hash of the file replaced when an upload ends before the early hash began", async () => {
    const { root, sandbox } = await writeFixture();
    const old = Buffer.alloc(2 * MiB, "o");
    await fsWriteFile(path.join(root, "f.bin"), old); // Just changed: the early hash waits first.
    const result = await uploadFile(sandbox, { path: "f.bin" }, yieldAll([Buffer.from("new")]));
    assert.equal(result.previousSha256, sha256Hex(old));
    assert.equal(await readFile(path.join(root, "f.bin"), "utf8"), "new");
  });

  it("is the hash of what the file holds at commit when it is written in place during the upload", async () => {
    const { root, sandbox } = await writeFixture();
    const target = path.join(root, "f.bin");
    const old = Buffer.alloc(2 * MiB, "o");
    await fsWriteFile(target, old);
    await sleep(150);
    const data = pieces(3, MiB);
    const result = await uploadFile(
      sandbox,
      { path: "f.bin" },
      yieldAll(data, async (index) => {
        if (index === 2) {
          await sleep(100); // The early hash of the 2 MiB is done by now.
          await appendFile(target, "changed");
        }
      }),
    );
    assert.equal(result.previousSha256, sha256Hex(Buffer.concat([old, Buffer.from("changed")])));
    assert.ok((await readFile(target)).equals(Buffer.concat(data)));
  });

  it("is the hash of the file that replaced the target during the upload", async () => {
    const { root, sandbox } = await writeFixture();
    const target = path.join(root, "f.bin");
    await fsWriteFile(target, Buffer.alloc(MiB, "o"));
    await sleep(150);
    const result = await uploadFile(
      sandbox,
      { path: "f.bin" },
      yieldAll(pieces(2, MiB), async (index) => {
        if (index === 1) {
          await sleep(100);
          await fsWriteFile(path.join(root, "other"), Buffer.alloc(MiB, "n"));
          await rename(path.join(root, "other"), target);
        }
      }),
    );
    assert.equal(result.previousSha256, sha256Hex(Buffer.alloc(MiB, "n")));
    assert.deepEqual((await readdir(root)).sort(), ["f.bin"]);
  });
});
