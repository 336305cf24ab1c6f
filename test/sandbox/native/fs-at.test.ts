import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, existsSync, linkSync, mkdirSync, mkdtempSync, openSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { loadFsAt, needBufferCode, noMatchCode, packNeedles, type FsAt } from "../../../src/sandbox/native/fs-at.js";
import { O_PATH } from "../../../src/sandbox/path-handle.js";
import { startExchangeLoop } from "../../support/exchange-loop.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

/** folder makes a temporary folder with `files` and holds it with O_PATH, as the walk does. */
function folder(files: Record<string, string | Buffer> = {}): { dir: string; fd: number } {
  const dir = mkdtempSync(path.join(tmpdir(), "fs-at-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return { dir, fd: openSync(dir, O_PATH | constants.O_DIRECTORY) };
}

function read(addon: FsAt, fd: number, name: string, size = 1024, limit = 1 << 20): { code: number; text: string; info: number } {
  const buffer = Buffer.alloc(size);
  const info = new Float64Array(1);
  const code = addon.readFileAt(fd, name, buffer, limit, info);
  return { code, text: code > 0 ? buffer.subarray(0, code).toString() : "", info: info[0]! };
}

describe("native fs-at addon", { skip }, () => {
  it("loads when built, and not when TOOLHOST_NATIVE=0", () => {
    assert.ok(fsAt !== undefined, "built but not loaded");
    assert.equal(loadFsAt({ TOOLHOST_NATIVE: "0" }), undefined);
  });

  it("readFileAt reads a regular file of the held folder and says why it skips the others", () => {
    const outside = folder({ "secret.txt": "SECRET\n" });
    const { dir, fd } = folder({ "a.txt": "hello\n", "big.txt": "x".repeat(5000), "bin.dat": Buffer.from([104, 0, 105]) });
    execFileSync("mkfifo", [path.join(dir, "p.fifo")]);
    symlinkSync(path.join(outside.dir, "secret.txt"), path.join(dir, "link.txt"));
    linkSync(path.join(outside.dir, "secret.txt"), path.join(dir, "hard.txt"));
    mkdirSync(path.join(dir, "sub"));
    const addon = fsAt!;
    assert.deepEqual(read(addon, fd, "a.txt"), { code: 6, text: "hello\n", info: 6 });
    assert.equal(read(addon, fd, "bin.dat").code, -1, "binary");
    assert.equal(read(addon, fd, "big.txt", 1024, 100).code, -2, "too large");
    assert.equal(read(addon, fd, "p.fifo").code, -3, "a FIFO is not regular (and never opened)");
    assert.equal(read(addon, fd, "sub").code, -3, "a folder is not regular");
    assert.equal(read(addon, fd, "hard.txt").code, -4, "hard-linked");
    assert.equal(read(addon, fd, "link.txt").code, -3, "a symlink is held as itself (O_PATH|O_NOFOLLOW), not followed: not regular");
    assert.equal(read(addon, fd, "missing").code, -6);
    for (const bad of ["../" + path.basename(dir) + "/a.txt", "sub/../a.txt", ".", "..", "", "a\0b"]) assert.equal(read(addon, fd, bad).code, -6, `name ${JSON.stringify(bad)}`);
    assert.deepEqual(read(addon, fd, "big.txt", 1024), { code: needBufferCode, text: "", info: 5001 }, "a buffer too small asks for size + 1");
    assert.equal(read(addon, fd, "big.txt", 5001).code, 5000);
    closeSync(fd);
    closeSync(outside.fd);
  });

  it("readBatch reads a batch's files one after another into the buffer and stops where the next does not fit", () => {
    const { dir, fd } = folder({ "a.txt": "aaaa", "b.txt": "bbbbbb", "c.txt": "cccccccc", "n.txt": "no needle", "big.txt": "x".repeat(100) });
    execFileSync("mkfifo", [path.join(dir, "p")]);
    const addon = fsAt!;
    const names = ["a.txt", "p", "b.txt", "n.txt", "c.txt", "../a.txt", "big.txt"];
    const fds = Int32Array.from(names, () => fd);
    const buffer = Buffer.alloc(20);
    const results = new Float64Array(2 * names.length);
    const needles = Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.from("e")]); // the one needle "e": c.txt lacks it
    assert.equal(addon.readBatch(fds, names.join("\0"), 0, buffer, 1000, null, results), 4, "a, p, b and n fit (4 + 6 + 9 bytes); c does not");
    assert.deepEqual([...results.subarray(0, 8)], [4, 0, -3, 0, 6, 4, 9, 10]);
    assert.equal(buffer.subarray(4, 10).toString(), "bbbbbb");
    assert.equal(addon.readBatch(fds, names.join("\0"), 4, buffer, 1000, needles, results), 7);
    assert.deepEqual([...results.subarray(8)], [-101, 8, -6, 0, -100, 101], "c lacks the needle (8 bytes read); ../a.txt is no name; big needs 101 bytes");
    assert.equal(addon.readBatch(fds, "a.txt", 0, buffer, 1000, null, results), 7, "names missing: unreadable, never a crash");
    assert.deepEqual([...results.subarray(0, 4)], [4, 0, -6, 0]);
    closeSync(fd);
  });

  it("findLines gives the start, end and number of each line holding the needle, a chunk at a time", () => {
    const lines = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `x${i} NEEDLE NEEDLE` : i % 7 === 0 ? "" : `line ${i}`));
    const content = Buffer.from(lines.join("\n") + "\nlast NEEDLE");
    const expected: number[][] = [];
    let offset = 0;
    [...lines, "last NEEDLE"].forEach((line, i) => {
      if (line.includes("NEEDLE")) expected.push([offset, offset + Buffer.byteLength(line), i + 1]);
      offset += Buffer.byteLength(line) + 1;
    });
    const out = new Float64Array(3 * 64);
    const got: number[][] = [];
    for (let from = 0, lineNumber = 1; ; ) {
      const n = fsAt!.findLines(content, from, Buffer.from("NEEDLE"), lineNumber, out);
      for (let i = 0; i < n; i++) got.push([out[3 * i]!, out[3 * i + 1]!, out[3 * i + 2]!]);
      if (n < 64) break;
      from = out[3 * n - 2]! + 1;
      lineNumber = out[3 * n - 1]! + 1;
    }
    assert.equal(expected.length, 101);
    assert.deepEqual(got, expected);
    assert.throws(() => fsAt!.findLines(content, 0, Buffer.alloc(0), 1, out), TypeError, "an empty needle is refused");
  });

  it("findLines and readFileAt's needles find what Buffer.indexOf finds, at every offset across the vector search's 32-byte blocks", () => {
    const { dir, fd } = folder();
    const out = new Float64Array(3 * 64);
    const info = new Float64Array(1);
    const buffer = Buffer.alloc(4096);
    let checked = 0;
    for (const needle of ["ab", "NEEDLE", "createElement", "x".repeat(40) + "y"]) {
      const bytes = Buffer.from(needle);
      // A near miss (the needle with its last byte changed) before the needle, both at every
      // offset of a 100-byte text: the candidates the two-byte filter lets through are checked.
      for (let at = 0; at + bytes.length <= 100; at += 1) {
        const content = Buffer.alloc(100, "x");
        const miss = Buffer.from(bytes);
        miss[miss.length - 1] = 0x5a; // "Z"
        if (at >= miss.length) miss.copy(content, at - miss.length);
        bytes.copy(content, at);
        const expected = content.indexOf(bytes);
        assert.equal(fsAt!.findLines(content, 0, bytes, 1, out), 1, `${needle} at ${at}`);
        assert.equal(out[0], 0);
        writeFileSync(path.join(dir, "t.txt"), content);
        assert.equal(fsAt!.readFileAt(fd, "t.txt", buffer, 1 << 20, info, packNeedles([bytes])), 100, `${needle} at ${at}: found`);
        const without = Buffer.from(content);
        without[expected + bytes.length - 1] = 0x5a;
        assert.equal(without.indexOf(bytes), -1);
        assert.equal(fsAt!.findLines(without, 0, bytes, 1, out), 0, `${needle} at ${at}: not found once changed`);
        writeFileSync(path.join(dir, "t.txt"), without);
        assert.equal(fsAt!.readFileAt(fd, "t.txt", buffer, 1 << 20, info, packNeedles([bytes])), noMatchCode);
        checked++;
      }
    }
    assert.equal(checked, 99 + 95 + 88 + 60);
    closeSync(fd);
  });

  it("listDir lists entries by kind; openDirAt opens a sub-folder, never a link; fdPath names a descriptor", () => {
    const outside = folder();
    const { dir, fd } = folder({ "f.txt": "" });
    mkdirSync(path.join(dir, "d"));
    symlinkSync(outside.dir, path.join(dir, "l"));
    execFileSync("mkfifo", [path.join(dir, "p")]);
    const addon = fsAt!;
    const listed = addon.listDir(fd)!.split("\0").filter(Boolean).sort();
    assert.deepEqual(listed, ["dd", "ff.txt", "ol", "op"]);
    const sub = addon.openDirAt(fd, "d");
    assert.ok(sub >= 0);
    assert.equal(addon.fdPath(sub), path.join(dir, "d"));
    assert.equal(addon.listDir(sub), "");
    // A descriptor open for reading (openDirAt's, the start folder's) is listed from its start
    // each time, not from where the last listing left it.
    const readable = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    assert.deepEqual(addon.listDir(readable)!.split("\0").filter(Boolean).sort(), listed);
    assert.deepEqual(addon.listDir(readable)!.split("\0").filter(Boolean).sort(), listed);
    closeSync(readable);
    assert.ok(addon.openDirAt(fd, "l") < 0, "a link to a folder is not opened");
    assert.ok(addon.openDirAt(fd, "f.txt") < 0, "a file is not a folder");
    assert.ok(addon.openDirAt(fd, "..") < 0, "no way up");
    assert.equal(addon.listDir(99999), null);
    assert.throws(() => addon.readFileAt(-1, "a", Buffer.alloc(1), 1, new Float64Array(1)), TypeError);
    closeSync(sub);
    closeSync(fd);
    closeSync(outside.fd);
  });

  it("readFileAt and readBatch never read outside while a file and a symlink to outside swap names, nor opens a FIFO swapped in", async () => {
    const outside = folder({ "secret.txt": "SECRET\n" });
    const { dir, fd } = folder({ "a.txt": "INSIDE\n", "c.txt": "INSIDE\n" });
    symlinkSync(path.join(outside.dir, "secret.txt"), path.join(dir, "b.txt"));
    const fifo = path.join(dir, "p.fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = spawn("sh", ["-c", 'exec 3>"$1"; echo opened', "sh", fifo], { stdio: ["ignore", "pipe", "ignore"] });
    let opened = false;
    writer.stdout.on("data", () => (opened = true));
    await new Promise((r) => setTimeout(r, 300));
    const links = await startExchangeLoop(path.join(dir, "a.txt"), path.join(dir, "b.txt"), 20);
    const fifos = await startExchangeLoop(path.join(dir, "c.txt"), fifo, 20);
    const counts = { inside: 0, batched: 0, outside: 0, skipped: 0 };
    const names = ["a.txt", "b.txt", "c.txt", "p.fifo"];
    const fds = Int32Array.from(names, () => fd);
    const batchBuffer = Buffer.alloc(4096);
    const results = new Float64Array(2 * names.length);
    try {
      const deadline = Date.now() + 2000;
      for (let i = 0; i < 200_000 && Date.now() < deadline && !opened; i++) {
        for (const name of names) {
          const { code, text } = read(fsAt!, fd, name);
          if (text.includes("SECRET")) counts.outside++;
          else if (text.includes("INSIDE")) counts.inside++;
          else if (code < 0) counts.skipped++;
        }
        // The same four through readBatch, into one buffer.
        fsAt!.readBatch(fds, names.join("\0"), 0, batchBuffer, 1 << 20, null, results);
        for (let k = 0; k < names.length; k++) {
          const [code, at] = [results[2 * k]!, results[2 * k + 1]!];
          const text = code > 0 ? batchBuffer.toString("utf8", at, at + code) : "";
          if (text.includes("SECRET")) counts.outside++;
          else if (text.includes("INSIDE")) counts.batched++;
        }
        if (i % 64 === 0) await new Promise((r) => setImmediate(r));
      }
    } finally {
      await links.stop();
      await fifos.stop();
      writer.kill("SIGKILL");
      closeSync(fd);
      closeSync(outside.fd);
    }
    assert.ok(counts.inside > 0 && counts.batched > 0 && counts.skipped > 0, `the race ran: ${JSON.stringify(counts)}`);
    assert.equal(counts.outside, 0, "read through the symlink");
    assert.equal(opened, false, "a FIFO's blocked writer went on: the FIFO was opened");
  });
});
