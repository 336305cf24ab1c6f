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
    sameEntryAndFolder: () => null,
    holdOnFolderMount: () => -1,
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

  it("read a file whose folder moved since the walk verified its path again without the path, and say which files had the per-file check", () => {
    const folderPaths: (string | null | undefined)[] = [];
    const single: string[] = [];
    const addon: FsAt = {
      ...asking(0),
      readBatch(dirFds, _names, from, buffer, _limit, _needles, results, paths) {
        folderPaths.push(paths);
        buffer.write("abc", 0);
        for (let i = from; i < dirFds.length; i++) [results[2 * i], results[2 * i + 1]] = i === 1 ? [-5, 0] : [3, 0];
        return dirFds.length;
      },
      readFileAt(_dirFd, name, buffer) {
        single.push(name);
        return buffer.write("moved", 0);
      },
    };
    const reads: [number, string, boolean][] = [];
    const each = (i: number, read: FileRead, inRoots: boolean): void => void reads.push([i, Buffer.isBuffer(read) ? read.toString() : String(read), inRoots]);
    readBatchAt(addon, Int32Array.of(3, 4, 5), "a\0b\0c", 100, false, () => false, undefined, each, "/r\0/r/moved\0");
    assert.deepEqual(folderPaths, ["/r\0/r/moved\0"], "the paths are handed to the addon");
    assert.deepEqual(single, ["b"], "only the file of the moved folder is read again, alone");
    assert.deepEqual(reads, [
      [0, "abc", true],
      [1, "moved", false],
      [2, "abc", false],
    ], "a: checked against its path; b: read again, its folder to be checked after the reads; c: no path given");
    reads.length = 0;
    readBatchAt(addon, Int32Array.of(3, 4), "a\0b", 100, false, () => false, undefined, each);
    assert.deepEqual(reads, [
      [0, "abc", false],
      [1, "outside", false],
    ], "without paths nothing is checked per file, and the outside code stays a skip");
  });

  it("gives up as unreadable after a bounded number of reads of a file that keeps outgrowing its buffer", () => {
    const addon = asking(2 << 20);
    assert.equal(readFileAt(addon, 3, "a.log", 16 << 20, false, () => false), "unreadable");
    assert.ok(addon.calls >= 2 && addon.calls <= 4, `${addon.calls} reads`);
  });
});
