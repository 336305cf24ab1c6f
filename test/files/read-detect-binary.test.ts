import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { detectBinary } from "../../src/files/read/detect-binary.js";
import { expectToolhostError, snapshotTree } from "../sandbox/sandbox-fixture.js";
import { collect, readRoot } from "./read-helpers.js";

const samples: { name: string; bytes: Buffer }[] = [
  { name: "PNG", bytes: Buffer.from("89504e470d0a1a0a0000000d49484452", "hex") },
  {
    name: "ELF",
    bytes: Buffer.concat([Buffer.from("7f454c46020101", "hex"), Buffer.from("plain text after the header")]),
  },
  { name: "PDF", bytes: Buffer.from("%PDF-1.7\n%comment\n1 0 obj\n<< /Type /Catalog >>\nendobj\n") },
  { name: "ZIP", bytes: Buffer.concat([Buffer.from("504b0304", "hex"), Buffer.from("archive.txt")]) },
  { name: "gzip", bytes: Buffer.from("1f8b0808abcdef", "hex") },
  { name: "JPEG", bytes: Buffer.from("ffd8ffe0", "hex") },
  { name: "NUL in text", bytes: Buffer.from("hello\0world\n") },
  {
    name: "control-heavy",
    bytes: Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 0x41 : (i % 8) + 1))),
  },
  { name: "DEL-heavy", bytes: Buffer.from("a\x7f\x7f\x7f".repeat(50)) },
  {
    name: "control bytes only after a text start",
    bytes: Buffer.concat([Buffer.from("plain text ".repeat(10)), Buffer.alloc(100, 0x01)]),
  },
];

const texts: { name: string; bytes: Buffer }[] = [
  { name: "empty", bytes: Buffer.alloc(0) },
  { name: "ASCII with tabs and CRLF", bytes: Buffer.from("a\tb\r\nc\f\n") },
  { name: "ANSI colours", bytes: Buffer.from("\x1b[31mred\x1b[0m and \x1b[32mgreen\x1b[0m\n") },
  { name: "UTF-8 with BOM", bytes: Buffer.from("\ufeffcafé\n") },
  { name: "Latin-1 (invalid UTF-8 is text, not binary)", bytes: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) },
  { name: "text that starts like 'BZh' but is not bzip2", bytes: Buffer.from("BZh is not a word\n") },
  { name: "a few control bytes (under the share limit)", bytes: Buffer.from("x".repeat(100) + "\x01\x02") },
  { name: "vertical tabs and form feeds", bytes: Buffer.from("a\vb\fc\n".repeat(20)) },
];

describe("detectBinary", () => {
  for (const { name, bytes } of samples) {
    it(`calls ${name} binary`, () => {
      assert.equal(detectBinary(bytes).binary, true);
    });
  }
  for (const { name, bytes } of texts) {
    it(`calls ${name} text`, () => {
      assert.equal(detectBinary(bytes).binary, false);
    });
  }
  it("looks only at the bytes of a view, not at the rest of its buffer", () => {
    const whole = Buffer.concat([Buffer.alloc(64, 0x01), Buffer.from("text\n".repeat(20)), Buffer.alloc(64, 0x02)]);
    assert.equal(detectBinary(new Uint8Array(whole.buffer, whole.byteOffset + 64, 100)).binary, false);
    assert.equal(detectBinary(whole.subarray(0, 100)).binary, true);
  });
  it("only looks at the first 8 KiB", () => {
    const late = Buffer.concat([Buffer.from("a".repeat(8192)), Buffer.from([0, 0, 0])]);
    assert.equal(detectBinary(late).binary, false);
  });
});

describe("text-mode reads refuse binary files", () => {
  for (const { name, bytes } of samples) {
    it(`refuses ${name} with BINARY_FILE "Binary file detected", and bytes mode reads it`, async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "file.bin"), bytes);
      const before = await snapshotTree(root);
      await expectToolhostError(() => collect(sandbox, { path: "file.bin", mode: "text" }), "BINARY_FILE", [
        "Binary file detected",
        "file.bin",
        "bytes mode",
      ]);
      assert.deepEqual(await snapshotTree(root), before);
      const read = await collect(sandbox, { path: "file.bin", mode: "bytes" });
      assert.deepEqual(read.data, bytes);
    });
  }
});
