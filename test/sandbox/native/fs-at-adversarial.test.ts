import assert from "node:assert/strict";
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { loadFsAt } from "../../../src/sandbox/native/fs-at.js";
import { O_PATH } from "../../../src/sandbox/path-handle.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

function folder(files: Record<string, string> = {}): { dir: string; fd: number } {
  const dir = mkdtempSync(path.join(tmpdir(), "fs-at-adv-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return { dir, fd: openSync(dir, O_PATH | constants.O_DIRECTORY) };
}

function readText(fd: number, name: string): { code: number; text: string } {
  const buffer = Buffer.alloc(4096);
  const code = fsAt!.readFileAt(fd, name, buffer, 1 << 20, new Float64Array(1), null, false);
  return { code, text: code > 0 ? buffer.subarray(0, code).toString() : "" };
}

describe("native fs-at addon under attack", { skip }, () => {
  it("refuses a name too long for a folder entry instead of cutting it short to another, existing entry", () => {
    // 255 bytes is the longest name; with "é" (2 bytes) after it the name is 257 bytes, which
    // napi_get_value_string_utf8 cut to the 255 "a"s before the character that did not fit.
    const short = "a".repeat(255);
    const { dir, fd } = folder({ [short]: "THE OTHER FILE\n" });
    mkdirSync(path.join(dir, "b".repeat(255)));
    try {
      assert.deepEqual(readText(fd, short), { code: 15, text: "THE OTHER FILE\n" });
      assert.deepEqual(readText(fd, `${short}é`), { code: -6, text: "" }, "a 257-byte name read the 255-byte entry");
      // A lone surrogate becomes a 3-byte U+FFFD: 85 of them fill 255 bytes, 86 must not be cut to 85.
      writeFileSync(path.join(dir, "\ufffd".repeat(85)), "REPLACEMENT\n");
      assert.deepEqual(readText(fd, "\ud800".repeat(86)), { code: -6, text: "" });
      const sub = fsAt!.openDirAt(fd, `${"b".repeat(255)}é`);
      if (sub >= 0) closeSync(sub);
      assert.ok(sub < 0, "a 257-byte name opened the 255-byte folder");
    } finally {
      closeSync(fd);
    }
  });

  it("refuses a descriptor or limit that is not a whole number instead of rounding it to another descriptor", () => {
    const { fd } = folder({ "a.txt": "INSIDE\n" });
    const info = new Float64Array(1);
    try {
      for (const bad of [Number.NaN, fd + 0.5, 2 ** 32 + fd, -0.5, Infinity]) {
        assert.throws(
          () => fsAt!.readFileAt(bad, "a.txt", Buffer.alloc(64), 64, info, null, false),
          TypeError,
          `readFileAt(${bad})`,
        );
        assert.throws(() => fsAt!.listDir(bad), TypeError, `listDir(${bad})`);
        assert.throws(() => fsAt!.openDirAt(bad, "a"), TypeError, `openDirAt(${bad})`);
        assert.throws(() => fsAt!.fdPath(bad), TypeError, `fdPath(${bad})`);
      }
      assert.throws(
        () => fsAt!.readFileAt(fd, "a.txt", Buffer.alloc(64), Number.NaN, info, null, false),
        TypeError,
        "a NaN limit",
      );
      assert.throws(
        () => fsAt!.readFileAt(fd, "a.txt", Buffer.alloc(64), -1, info, null, false),
        TypeError,
        "a negative limit",
      );
      const results = new Float64Array(2);
      assert.throws(
        () => fsAt!.readBatch(Int32Array.of(fd), "a.txt", 0, Buffer.alloc(64), Number.NaN, null, results, null, false),
        TypeError,
        "readBatch: a NaN limit",
      );
      assert.throws(
        () => fsAt!.readBatch(Int32Array.of(fd), "a.txt", 0.5, Buffer.alloc(64), 64, null, results, null, false),
        TypeError,
        "readBatch: from 0.5",
      );
      assert.equal(fsAt!.readBatch(Int32Array.of(fd), "a.txt", 0, Buffer.alloc(64), 64, null, results, null, false), 1);
      assert.deepEqual([...results], [7, 0]);
      assert.equal(fsAt!.readFileAt(fd, "a.txt", Buffer.alloc(64), 64, info, null, false), 7);
    } finally {
      closeSync(fd);
    }
  });

  it("never resolves /proc/self/fd through a descriptor number someone else in the process can close and reuse", () => {
    const outside = folder({ "secret.txt": "SECRET\n" });
    const { dir, fd } = folder({ "a.txt": "INSIDE\n" });
    const trap = mkdtempSync(path.join(tmpdir(), "fs-at-trap-"));
    for (let n = 0; n < 1024; n++) symlinkSync(path.join(outside.dir, "secret.txt"), path.join(trap, String(n)));
    assert.equal(readText(fd, "a.txt").text, "INSIDE\n");
    // A bug anywhere in the process (a double close) closes a number the addon may hold; the next
    // open takes that number. Simulated: every descriptor of /proc/self/fd itself is closed and
    // the trap folder opened in its place.
    const procFd = `/proc/${process.pid}/fd`;
    const held = readdirSync("/proc/self/fd")
      .map(Number)
      .filter((n) => {
        try {
          return readlinkSync(`/proc/self/fd/${n}`) === procFd;
        } catch {
          return false;
        }
      });
    const traps: number[] = [];
    for (const n of held) {
      closeSync(n);
      for (let i = 0; i < 64; i++) {
        const t = openSync(trap, O_PATH | constants.O_DIRECTORY);
        traps.push(t);
        if (t === n) break;
      }
    }
    try {
      assert.deepEqual(
        readText(fd, "a.txt"),
        { code: 7, text: "INSIDE\n" },
        `read through the trap (held ${JSON.stringify(held)})`,
      );
      assert.equal(fsAt!.fdPath(fd), dir);
    } finally {
      for (const t of traps) closeSync(t);
      closeSync(fd);
      closeSync(outside.fd);
    }
  });
});
