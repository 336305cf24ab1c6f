import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HpackDecoder } from "../../clients/ts/src/transport/h2/hpack-decoder.js";
import { huffmanDecode, huffmanEncode, huffmanEncodedLength } from "../../clients/ts/src/transport/h2/hpack-huffman.js";
import { hex, SERIES, type Field } from "../support/hpack-fixtures.js";

describe("HPACK decoder on RFC 7541 Appendix C", () => {
  it("decodes C.2.1-C.2.4, one field each, and indexes only C.2.1's", () => {
    const cases: [string, Field, Field[]][] = [
      ["400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", ["custom-key", "custom-header"], [["custom-key", "custom-header"]]],
      ["040c 2f73 616d 706c 652f 7061 7468", [":path", "/sample/path"], []],
      ["1008 7061 7373 776f 7264 0673 6563 7265 74", ["password", "secret"], []],
      ["82", [":method", "GET"], []],
    ];
    for (const [block, field, table] of cases) {
      const d = new HpackDecoder();
      assert.deepEqual(d.decode(hex(block)), [field]);
      assert.deepEqual(d.dynamicTable, table);
      assert.equal(d.dynamicTableSize, table.length ? 55 : 0);
    }
  });

  for (const { section, tableSize, steps } of SERIES) {
    it(`decodes ${section}'s ${steps.length} blocks with the dynamic table the RFC shows after each`, () => {
      const d = new HpackDecoder(tableSize);
      for (const step of steps) {
        assert.deepEqual(d.decode(hex(step.hex)), step.fields);
        assert.deepEqual(d.dynamicTable, step.table);
        assert.equal(d.dynamicTableSize, step.size);
      }
    });
  }

  it("Huffman-codes C.4's and C.6's strings as the RFC does, and decodes them back", () => {
    const cases: [string, string][] = [
      ["www.example.com", "f1e3c2e5f23a6ba0ab90f4ff"],
      ["no-cache", "a8eb10649cbf"],
      ["custom-key", "25a849e95ba97d7f"],
      ["custom-value", "25a849e95bb8e8b4bf"],
      ["302", "6402"],
      ["private", "aec3771a4b"],
      ["Mon, 21 Oct 2013 20:13:21 GMT", "d07abe941054d444a8200595040b8166e082a62d1bff"],
      ["https://www.example.com", "9d29ad171863c78f0b97c8e9ae82ae43d3"],
      ["foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1", "94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007"],
    ];
    for (const [text, code] of cases) {
      const out = Buffer.alloc(huffmanEncodedLength(text));
      assert.equal(huffmanEncode(text, out, 0), out.length);
      assert.equal(out.toString("hex"), code);
      assert.equal(huffmanDecode(out, 0, out.length), text);
    }
  });

  it("Huffman-codes every byte 0-255 and decodes it back, alone and in a run", () => {
    const all = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i));
    for (const text of [...all, all.join(""), all.reverse().join("")]) {
      const out = Buffer.alloc(huffmanEncodedLength(text) + 2);
      const end = huffmanEncode(text, out, 1);
      assert.equal(end, out.length - 1);
      assert.equal(huffmanDecode(out, 1, end), text);
    }
  });
});
