import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { incompleteTailStart, Utf8ChunkDecoder } from "../../src/files/read/decode-utf8-chunks.js";

/** decodeInPieces feeds `bytes` to one decoder `size` bytes at a time. */
function decodeInPieces(bytes: Buffer, size: number): { chunks: string[]; utf8: Buffer; replaced: number } {
  const decoder = new Utf8ChunkDecoder();
  const chunks: string[] = [];
  const utf8: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    const out = decoder.decode(bytes.subarray(i, i + size));
    chunks.push(out.text);
    utf8.push(Buffer.from(out.utf8));
  }
  const end = decoder.end();
  chunks.push(end.text);
  utf8.push(Buffer.from(end.utf8));
  return { chunks, utf8: Buffer.concat(utf8), replaced: decoder.replacedSequences };
}

const mixed = "aé€😀b\u0000ü\n日本語😀";

describe("Utf8ChunkDecoder", () => {
  for (const size of [1, 2, 3, 4, 5, 7]) {
    it(`never splits a character with ${size}-byte pieces`, () => {
      const { chunks, utf8, replaced } = decodeInPieces(Buffer.from(mixed), size);
      assert.equal(chunks.join(""), mixed);
      assert.equal(replaced, 0);
      assert.deepEqual(utf8, Buffer.from(mixed));
      for (const chunk of chunks) {
        // A split surrogate pair or a partial sequence would show up as U+FFFD or a lone surrogate.
        assert.equal(chunk.includes("\ufffd"), false);
        assert.equal(Buffer.from(chunk, "utf8").toString("utf8"), chunk);
      }
    });
  }

  it("replaces invalid sequences with U+FFFD and counts them", () => {
    // 0xff is never valid, 0xc3 without continuation, an overlong "/" (c0 af), a lone continuation.
    const bytes = Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x63, 0xc0, 0xaf, 0x64, 0x80, 0x65]);
    for (const size of [1, 2, 3, 64]) {
      const { chunks, utf8, replaced } = decodeInPieces(bytes, size);
      const text = chunks.join("");
      assert.equal(text, new TextDecoder().decode(bytes), `size ${size}`);
      assert.equal(replaced, 5, `size ${size}: ${JSON.stringify(text)}`);
      assert.deepEqual(utf8, Buffer.from(text, "utf8"));
    }
  });

  it("does not count a literal U+FFFD in the file as a replacement", () => {
    const bytes = Buffer.concat([Buffer.from("ok \ufffd ok "), Buffer.from([0xfe]), Buffer.from(" \ufffd")]);
    const { chunks, replaced } = decodeInPieces(bytes, 2);
    assert.equal(chunks.join(""), "ok \ufffd ok \ufffd \ufffd");
    assert.equal(replaced, 1);
  });

  it("replaces a truncated sequence at the very end", () => {
    const { chunks, replaced } = decodeInPieces(Buffer.from([0x61, 0xe2, 0x82]), 1);
    assert.equal(chunks.join(""), "a\ufffd");
    assert.equal(replaced, 1);
  });

  it("incompleteTailStart finds the start of an unfinished character", () => {
    assert.equal(incompleteTailStart(Buffer.from("abc")), 3);
    assert.equal(incompleteTailStart(Buffer.from([0x61, 0xe2, 0x82])), 1);
    assert.equal(incompleteTailStart(Buffer.from([0x61, 0xe2, 0x82, 0xac])), 4);
    assert.equal(incompleteTailStart(Buffer.from([0xf0, 0x9f, 0x98])), 0);
    assert.equal(incompleteTailStart(Buffer.from([0xf0, 0x9f, 0x98, 0x80])), 4);
  });
});
