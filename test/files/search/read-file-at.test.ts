import assert from "node:assert/strict";
import { constants as bufferConstants } from "node:buffer";
import { describe, it } from "node:test";
import { readFileAt } from "../../../src/files/search/read-file-at.js";
import { needBufferCode, type FsAt } from "../../../src/sandbox/native/fs-at.js";

/** asking is an addon that always says the file needs a buffer of `length` bytes. */
function asking(length: number): FsAt & { calls: number } {
  const fake = {
    calls: 0,
    readFileAt(_dirFd: number, _name: string, _buffer: Buffer, _limit: number, info: Float64Array): number {
      fake.calls++;
      info[0] = length;
      return needBufferCode;
    },
    listDir: () => null,
    openDirAt: () => -1,
    fdPath: () => null,
  };
  return fake;
}

describe("readFileAt (the match worker's native read)", () => {
  it("skips a file it has no memory for as unreadable, as the JavaScript path does, instead of throwing out of the worker", () => {
    const tooLong = bufferConstants.MAX_LENGTH + 1;
    const addon = asking(tooLong);
    assert.equal(readFileAt(addon, 3, "huge.log", tooLong, false, () => false), "unreadable");
    assert.equal(addon.calls, 1);
  });

  it("gives up as unreadable after a bounded number of reads of a file that keeps outgrowing its buffer", () => {
    const addon = asking(2 << 20);
    assert.equal(readFileAt(addon, 3, "a.log", 16 << 20, false, () => false), "unreadable");
    assert.ok(addon.calls >= 2 && addon.calls <= 4, `${addon.calls} reads`);
  });
});
