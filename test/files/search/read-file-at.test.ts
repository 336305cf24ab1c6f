import assert from "node:assert/strict";
import { constants as bufferConstants } from "node:buffer";
import { describe, it } from "node:test";
import { readBatchAt, readFileAt, type FileRead } from "../../../src/files/search/read-file-at.js";
import type { NativeContentReads } from "../../../src/sandbox/content/native-content.js";
import { needBufferCode } from "../../../src/sandbox/native/fs-at.js";

const rules = { roots: ["/"], allowHardLinks: false };

/** asking is the addon's content reads always saying a file needs a buffer of `length` bytes. */
function asking(length: number): NativeContentReads & { calls: number } {
  const fake = {
    calls: 0,
    readContentAt(_dirFd: number, _name: string, _buffer: Buffer, _limit: number, info: Float64Array): number {
      fake.calls++;
      info[0] = length;
      return needBufferCode;
    },
    readContentBatch(
      dirFds: Int32Array,
      _names: string,
      from: number,
      _buffer: Buffer,
      _limit: number,
      _needles: Buffer | null,
      results: Float64Array,
    ): number {
      fake.calls++;
      for (let i = from; i < dirFds.length; i++) {
        results[2 * i] = needBufferCode;
        results[2 * i + 1] = length;
      }
      return dirFds.length;
    },
  };
  return fake;
}

describe("readFileAt and readBatchAt (the match worker's native reads)", () => {
  it("skip a file they have no memory for as unreadable, as the JavaScript path does, instead of throwing out of the worker", () => {
    const tooLong = bufferConstants.MAX_LENGTH + 1;
    assert.equal(
      readFileAt(rules, 3, "huge.log", tooLong, false, () => false, undefined, undefined, asking(tooLong)),
      "unreadable",
    );
    const reads: [number, FileRead][] = [];
    readBatchAt(
      rules,
      Int32Array.of(3, 3),
      "huge.log\0other.log",
      tooLong,
      false,
      () => false,
      undefined,
      (i, read) => reads.push([i, read]),
      undefined,
      asking(tooLong),
    );
    assert.deepEqual(reads, [
      [0, "unreadable"],
      [1, "unreadable"],
    ]);
  });

  it("read a file whose folder moved since the walk verified its path again without the path, and say which files had the per-file check", () => {
    const folderPaths: (string | null | undefined)[] = [];
    const single: string[] = [];
    const addon: NativeContentReads = {
      ...asking(0),
      readContentBatch(dirFds, _names, from, buffer, _limit, _needles, results, paths) {
        folderPaths.push(paths);
        buffer.write("abc", 0);
        for (let i = from; i < dirFds.length; i++) [results[2 * i], results[2 * i + 1]] = i === 1 ? [-5, 0] : [3, 0];
        return dirFds.length;
      },
      readContentAt(_dirFd, name, buffer) {
        single.push(name);
        return buffer.write("moved", 0);
      },
    };
    const reads: [number, string, boolean][] = [];
    const each = (i: number, read: FileRead, inRoots: boolean): void =>
      void reads.push([i, Buffer.isBuffer(read) ? read.toString() : String(read), inRoots]);
    readBatchAt(
      rules,
      Int32Array.of(3, 4, 5),
      "a\0b\0c",
      100,
      false,
      () => false,
      undefined,
      each,
      "/r\0/r/moved\0",
      addon,
    );
    assert.deepEqual(folderPaths, ["/r\0/r/moved\0"], "the paths are handed to the addon");
    assert.deepEqual(single, ["b"], "only the file of the moved folder is read again, alone");
    assert.deepEqual(
      reads,
      [
        [0, "abc", true],
        [1, "moved", false],
        [2, "abc", false],
      ],
      "a: checked against its path; b: read again, its folder to be checked after the reads; c: no path given",
    );
    reads.length = 0;
    readBatchAt(rules, Int32Array.of(3, 4), "a\0b", 100, false, () => false, undefined, each, undefined, addon);
    assert.deepEqual(
      reads,
      [
        [0, "abc", false],
        [1, "outside", false],
      ],
      "without paths nothing is checked per file, and the outside code stays a skip",
    );
  });

  it("gives up as unreadable after a bounded number of reads of a file that keeps outgrowing its buffer", () => {
    const addon = asking(2 << 20);
    assert.equal(
      readFileAt(rules, 3, "a.log", 16 << 20, false, () => false, undefined, undefined, addon),
      "unreadable",
    );
    assert.ok(addon.calls >= 2 && addon.calls <= 4, `${addon.calls} reads`);
  });
});
