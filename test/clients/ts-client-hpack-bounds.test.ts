import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HpackDecoder } from "../../clients/ts/src/transport/h2/hpack-decoder.js";
import { HpackEncoder } from "../../clients/ts/src/transport/h2/hpack-encoder.js";
import { HpackError } from "../../clients/ts/src/transport/h2/hpack-error.js";
import { hex, SERIES, throwsHpack } from "../support/hpack-fixtures.js";

// Every assert.ok has a message: without one, assert reads the test's source to quote the
// expression, which under tsx's transform can take minutes.

describe("HPACK decoder bounds and malformed blocks", () => {
  /** A block of every representation: indexed, the three literals with indexed and new names, Huffman and raw. */
  const mixed = (): Buffer =>
    Buffer.concat([
      hex("3f e1 1f"), // table size update to 4096
      hex(SERIES[3]?.steps[0]?.hex ?? ""),
      hex("1008 7061 7373 776f 7264 0673 6563 7265 74"),
      hex("040c 2f73 616d 706c 652f 7061 7468"),
      new HpackEncoder(true).encode([["x-long", "v".repeat(300)], ["content-type", "application/grpc"]]),
      hex("be bf 82"),
    ]);

  it("decodes every prefix of a valid block to a prefix of its fields or throws HpackError", () => {
    const full = new HpackDecoder().decode(mixed());
    assert.equal(full.length, 11);
    const block = mixed();
    let threw = 0;
    for (let k = 0; k <= block.length; k++) {
      try {
        const fields = new HpackDecoder().decode(block.subarray(0, k));
        assert.deepEqual(fields, full.slice(0, fields.length));
      } catch (err) {
        assert.ok(err instanceof HpackError, `prefix ${k}: ${String(err)}`);
        threw++;
      }
    }
    assert.ok(threw > block.length / 2, `${threw} of ${block.length + 1} prefixes threw`);
    throwsHpack(() => new HpackDecoder().decode(hex("0f")), "truncated in an integer");
    throwsHpack(() => new HpackDecoder().decode(hex("00")), "truncated before a string");
    throwsHpack(() => new HpackDecoder().decode(hex("00 05 61 62")), "string of 5 bytes is past the header block's end");
  });

  it("rejects index 0 and indexes past the table, in indexed fields and literal names", () => {
    throwsHpack(() => new HpackDecoder().decode(hex("80")), "header field index 0 is not allowed");
    throwsHpack(() => new HpackDecoder().decode(hex("be")), "header field index 62 is past the table's 61 entries");
    throwsHpack(() => new HpackDecoder().decode(hex("7f 00 01 61")), "index 63 is past");
    const d = new HpackDecoder();
    d.decode(hex(SERIES[0]?.steps[0]?.hex ?? "")); // one dynamic entry: 62 is valid, 63 is not
    assert.deepEqual(d.decode(hex("be")), [[":authority", "www.example.com"]]);
    throwsHpack(() => d.decode(hex("bf")), "index 63 is past the table's 62 entries");
  });

  it("bounds integers at 2^31 - 1 and 5 continuation bytes", () => {
    /** int encodes an indexed field's index with its 7-bit prefix. */
    const int = (value: number): Buffer => {
      const bytes = [0xff];
      for (let rest = value - 127; ; rest = Math.floor(rest / 128)) {
        if (rest < 128) return Buffer.from([...bytes, rest]);
        bytes.push((rest % 128) | 0x80);
      }
    };
    throwsHpack(() => new HpackDecoder().decode(int(2 ** 31 - 1)), "header field index 2147483647 is past");
    throwsHpack(() => new HpackDecoder().decode(int(2 ** 31)), "integer overflows 2^31 - 1");
    throwsHpack(() => new HpackDecoder().decode(hex("ff 80 80 80 80 00")), "header field index 127 is past");
    throwsHpack(() => new HpackDecoder().decode(hex("ff 80 80 80 80 80 00")), "integer has too many continuation bytes");
    throwsHpack(() => new HpackDecoder().decode(hex("00 7f ff ff ff ff 0f")), "integer overflows 2^31 - 1");
  });

  it("accepts table size updates at the block's start up to the limit, evicting, and rejects others", () => {
    const d = new HpackDecoder(4096);
    d.decode(hex(SERIES[0]?.steps[0]?.hex ?? ""));
    assert.deepEqual(d.decode(hex("3f e1 1f 20 82")), [[":method", "GET"]]); // 4096, then 0: the table is empty
    assert.deepEqual(d.dynamicTable, []);
    throwsHpack(() => d.decode(hex("3f e2 1f")), "dynamic table size update to 4097 exceeds the limit 4096");
    throwsHpack(() => new HpackDecoder().decode(hex("82 20")), "dynamic table size update after a header field");
    const small = new HpackDecoder(256);
    small.decode(hex("3f 31")); // 80 bytes: the C.3 entry (57) fits, a second does not
    small.decode(hex(SERIES[0]?.steps[0]?.hex ?? ""));
    assert.deepEqual(small.decode(hex("40 01 61 01 62")), [["a", "b"]]); // 34 bytes: evicts :authority
    assert.deepEqual(small.dynamicTable, [["a", "b"]]);
    assert.equal(small.dynamicTableSize, 34);
    const big = Buffer.concat([hex("40 01 61 30"), Buffer.alloc(48, 0x76)]); // 81 bytes: empties the table
    assert.deepEqual(small.decode(big), [["a", "v".repeat(48)]]);
    assert.deepEqual(small.dynamicTable, []);
    assert.equal(small.dynamicTableSize, 0);
  });

  it("rejects Huffman strings with EOS, padding past 7 bits, or padding that is not all ones", () => {
    throwsHpack(() => new HpackDecoder().decode(hex("00 01 61 84 ff ff ff ff")), "contains EOS");
    throwsHpack(() => new HpackDecoder().decode(hex("00 01 61 81 ff")), "more than 7 bits of padding");
    throwsHpack(() => new HpackDecoder().decode(hex("00 01 61 81 18")), "padding that is not all ones");
    assert.deepEqual(new HpackDecoder().decode(hex("00 01 61 81 1f")), [["a", "a"]]);
  });

  it("bounds the decoded header list size, also for repeated indexed fields", () => {
    const field = (n: number) => Buffer.concat([hex("00 01 78"), Buffer.from([n]), Buffer.alloc(n, 0x76)]);
    assert.equal(new HpackDecoder(4096, 100).decode(field(67)).length, 1); // 1 + 67 + 32 = 100
    throwsHpack(() => new HpackDecoder(4096, 100).decode(field(68)), "header list size exceeds the limit 100");
    // :method GET counts 42 bytes: 97 of them fit 4096, 98 do not
    assert.equal(new HpackDecoder().decode(Buffer.alloc(97, 0x82)).length, 97);
    throwsHpack(() => new HpackDecoder(4096, 4096).decode(Buffer.alloc(98, 0x82)), "header list size exceeds the limit 4096");
  });
});
