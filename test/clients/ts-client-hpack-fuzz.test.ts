import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HpackDecoder } from "../../clients/ts/src/transport/h2/hpack-decoder.js";
import { HpackEncoder, encodeHeaderPrefix } from "../../clients/ts/src/transport/h2/hpack-encoder.js";
import { HpackError } from "../../clients/ts/src/transport/h2/hpack-error.js";
import { hex, SERIES, type Field } from "../support/hpack-fixtures.js";
import { seededRandom } from "../support/seeded-random.js";

// Every assert.ok has a message: without one, assert reads the test's source to quote the
// expression, which under tsx's transform can take minutes.

describe("HPACK fuzzing", () => {
  /** decodeOrHpackError decodes `block`, allowing only HpackError; a fresh decoder after an error, as a connection would be closed. */
  const check = (d: HpackDecoder, block: Uint8Array): HpackDecoder => {
    try {
      const fields = d.decode(block);
      for (const [n, v] of fields) assert.ok(typeof n === "string" && typeof v === "string", "fields are strings");
      return d;
    } catch (err) {
      if (!(err instanceof HpackError)) throw new Error(`block ${Buffer.from(block).toString("hex")}: ${String(err)}`);
      return new HpackDecoder(256, 8192);
    }
  };

  it("throws only HpackError for random bytes and mutated valid blocks (seeded)", () => {
    const rnd = seededRandom(7541);
    const byte = () => Math.floor(rnd() * 256);
    let d = new HpackDecoder(256, 8192);
    for (let i = 0; i < 2000; i++) d = check(d, Buffer.from(Array.from({ length: Math.floor(rnd() * 48) }, byte)));
    const valid = SERIES.flatMap((s) => s.steps.map((step) => hex(step.hex)));
    valid.push(new HpackEncoder(true).encode([[":path", "/a/b"], ["x-k", "\u00ff".repeat(40)], ["te", "trailers"]]));
    for (let i = 0; i < 4000; i++) {
      const block = Buffer.from(valid[Math.floor(rnd() * valid.length)] ?? []);
      const bytes = [...block];
      for (let m = 1 + Math.floor(rnd() * 3); m > 0; m--) {
        const at = Math.floor(rnd() * (bytes.length + 1));
        const op = rnd();
        if (op < 0.4) bytes[at] = byte();
        else if (op < 0.6) bytes[at] = (bytes[at] ?? 0) ^ (1 << Math.floor(rnd() * 8));
        else if (op < 0.8) bytes.splice(at, 0, byte());
        else bytes.splice(at, 1 + Math.floor(rnd() * 4));
      }
      d = check(d, Buffer.from(bytes));
    }
  });

  it("round-trips random header lists through the encoder (raw, Huffman, with a prefix) and the decoder", () => {
    const rnd = seededRandom(7540);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)] ?? "a";
    const common: Field[] = [[":method", "POST"], [":path", "/"], ["content-type", "application/grpc"], ["te", "trailers"], ["accept", "x"]];
    const field = (): Field => {
      if (rnd() < 0.2) return common[Math.floor(rnd() * common.length)] ?? ["a", "b"];
      const name = Array.from({ length: 1 + Math.floor(rnd() * 20) }, () => pick("abcdefghijklmnopqrstuvwxyz0123456789-")).join("");
      const long = rnd() < 0.05 ? 200 : 30;
      const value = Array.from({ length: Math.floor(rnd() * long) }, () => {
        let c = 0;
        while (c === 0 || c === 10 || c === 13) c = Math.floor(rnd() * (rnd() < 0.7 ? 128 : 256));
        return String.fromCharCode(c);
      }).join("");
      return [name, value];
    };
    const raw = new HpackEncoder();
    const huff = new HpackEncoder(true);
    const d = new HpackDecoder();
    for (let i = 0; i < 1500; i++) {
      const ordered = (fields: Field[]): Field[] => [...fields.filter(([k]) => k.startsWith(":")), ...fields.filter(([k]) => !k.startsWith(":"))];
      const list = (n: number): Field[] => ordered(Array.from({ length: Math.floor(rnd() * n) }, field));
      const [head, mid, tail] = [list(4), list(8), list(4)];
      const all = ordered([...head, ...mid]);
      assert.deepEqual(d.decode(raw.encode(all)), all);
      assert.deepEqual(d.decode(huff.encode(mid, encodeHeaderPrefix(head), raw.encode(tail))), [...head, ...mid, ...tail]);
    }
    assert.deepEqual(d.dynamicTable, [], "the encoder never indexes");
  });
});
