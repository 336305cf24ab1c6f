import assert from "node:assert/strict";
import { constants as bufferConstants } from "node:buffer";
import { describe, it } from "node:test";
import { readBatchAt, readFileAt, type FileRead } from "../../../src/files/search/read-file-at.js";
import { needBufferCode, type FsAt } from "../../../src/sandbox/native/fs-at.js";

/** asking is an addon that always says a file needs a buffer of `length` bytes. */
function asking(length: number): FsAt & { calls: number } {
  const fake = {
    calls: 0,
    readFileAt(_dirFd: number, _name: string, _buffer: Buffer, _limit: number, info: Float64Array): number {
      fake.calls++;
      info[0] = length;
      return needBufferCode;
    },
    readBatch(dirFds: Int32Array, _names: string, from: number, _buffer: Buffer, _limit: number, _needles: Buffer | null, results: Float64Array): number {
      fake.calls++;
      for (let i = from; i < dirFds.length; i++) {
        results[2 * i] = needBufferCode;
        results[2 * i + 1] = length;
      }
      return dirFds.length;
    },
    findLines: () => 0,
    listDir: () => null,
    openDirAt: () => -1,
    fdPath: () => null,
    folderBarrier: () => null,
  };
  return fake;
}

describe("readFileAt and readBatchAt (the match worker's native reads)", () => {
  it("skip a file they have no memory for as unreadable, as the JavaScript path does, instead of throwing out of the worker", () => {
    const tooLong = bufferConstants.MAX_LENGTH + 1;
    assert.equal(readFileAt(asking(tooLong), 3, "huge.log", tooLong, false, () => false), "unreadable");
    const reads: [number, FileRead][] = [];
    readBatchAt(asking(tooLong), Int32Array.of(3, 3), "huge.log\0other.log", tooLong, false, () => false, undefined, (i, read) => reads.push([i, read]));
    assert.deepEqual(reads, [
      [0, "unreadable"],
      [1, "unreadable"],
    ]);
  });

  it("gives up as unreadable after a bounded number of reads of a file that keeps outgrowing its buffer", () => {
    const addon = asking(2 << 20);
    assert.equal(readFileAt(addon, 3, "a.log", 16 << 20, false, () => false), "unreadable");
    assert.ok(addon.calls >= 2 && addon.calls <= 4, `${addon.calls} reads`);
  });
});
