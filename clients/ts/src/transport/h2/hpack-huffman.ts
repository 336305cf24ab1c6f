import { HpackError } from "./hpack-error.js";

/**
 * HUFFMAN_CODE is HPACK's Huffman code (RFC 7541 Appendix B): for each symbol 0..256 (256 is EOS)
 * its code, right-aligned, then its length in bits, as pairs. Checked against the RFC's C.4 and C.6
 * examples (test/clients/ts-client-hpack.test.ts), the Kraft sum (exactly 1), and golang.org/x/net's
 * table it was generated from.
 */
const HUFFMAN_CODE: readonly number[] = [
  0x1ff8, 13, 0x7fffd8, 23, 0xfffffe2, 28, 0xfffffe3, 28, 0xfffffe4, 28, 0xfffffe5, 28, 0xfffffe6, 28, 0xfffffe7, 28,
  0xfffffe8, 28, 0xffffea, 24, 0x3ffffffc, 30, 0xfffffe9, 28, 0xfffffea, 28, 0x3ffffffd, 30, 0xfffffeb, 28, 0xfffffec, 28,
  0xfffffed, 28, 0xfffffee, 28, 0xfffffef, 28, 0xffffff0, 28, 0xffffff1, 28, 0xffffff2, 28, 0x3ffffffe, 30, 0xffffff3, 28,
  0xffffff4, 28, 0xffffff5, 28, 0xffffff6, 28, 0xffffff7, 28, 0xffffff8, 28, 0xffffff9, 28, 0xffffffa, 28, 0xffffffb, 28,
  0x14, 6, 0x3f8, 10, 0x3f9, 10, 0xffa, 12, 0x1ff9, 13, 0x15, 6, 0xf8, 8, 0x7fa, 11,
  0x3fa, 10, 0x3fb, 10, 0xf9, 8, 0x7fb, 11, 0xfa, 8, 0x16, 6, 0x17, 6, 0x18, 6,
  0x0, 5, 0x1, 5, 0x2, 5, 0x19, 6, 0x1a, 6, 0x1b, 6, 0x1c, 6, 0x1d, 6,
  0x1e, 6, 0x1f, 6, 0x5c, 7, 0xfb, 8, 0x7ffc, 15, 0x20, 6, 0xffb, 12, 0x3fc, 10,
  0x1ffa, 13, 0x21, 6, 0x5d, 7, 0x5e, 7, 0x5f, 7, 0x60, 7, 0x61, 7, 0x62, 7,
  0x63, 7, 0x64, 7, 0x65, 7, 0x66, 7, 0x67, 7, 0x68, 7, 0x69, 7, 0x6a, 7,
  0x6b, 7, 0x6c, 7, 0x6d, 7, 0x6e, 7, 0x6f, 7, 0x70, 7, 0x71, 7, 0x72, 7,
  0xfc, 8, 0x73, 7, 0xfd, 8, 0x1ffb, 13, 0x7fff0, 19, 0x1ffc, 13, 0x3ffc, 14, 0x22, 6,
  0x7ffd, 15, 0x3, 5, 0x23, 6, 0x4, 5, 0x24, 6, 0x5, 5, 0x25, 6, 0x26, 6,
  0x27, 6, 0x6, 5, 0x74, 7, 0x75, 7, 0x28, 6, 0x29, 6, 0x2a, 6, 0x7, 5,
  0x2b, 6, 0x76, 7, 0x2c, 6, 0x8, 5, 0x9, 5, 0x2d, 6, 0x77, 7, 0x78, 7,
  0x79, 7, 0x7a, 7, 0x7b, 7, 0x7ffe, 15, 0x7fc, 11, 0x3ffd, 14, 0x1ffd, 13, 0xffffffc, 28,
  0xfffe6, 20, 0x3fffd2, 22, 0xfffe7, 20, 0xfffe8, 20, 0x3fffd3, 22, 0x3fffd4, 22, 0x3fffd5, 22, 0x7fffd9, 23,
  0x3fffd6, 22, 0x7fffda, 23, 0x7fffdb, 23, 0x7fffdc, 23, 0x7fffdd, 23, 0x7fffde, 23, 0xffffeb, 24, 0x7fffdf, 23,
  0xffffec, 24, 0xffffed, 24, 0x3fffd7, 22, 0x7fffe0, 23, 0xffffee, 24, 0x7fffe1, 23, 0x7fffe2, 23, 0x7fffe3, 23,
  0x7fffe4, 23, 0x1fffdc, 21, 0x3fffd8, 22, 0x7fffe5, 23, 0x3fffd9, 22, 0x7fffe6, 23, 0x7fffe7, 23, 0xffffef, 24,
  0x3fffda, 22, 0x1fffdd, 21, 0xfffe9, 20, 0x3fffdb, 22, 0x3fffdc, 22, 0x7fffe8, 23, 0x7fffe9, 23, 0x1fffde, 21,
  0x7fffea, 23, 0x3fffdd, 22, 0x3fffde, 22, 0xfffff0, 24, 0x1fffdf, 21, 0x3fffdf, 22, 0x7fffeb, 23, 0x7fffec, 23,
  0x1fffe0, 21, 0x1fffe1, 21, 0x3fffe0, 22, 0x1fffe2, 21, 0x7fffed, 23, 0x3fffe1, 22, 0x7fffee, 23, 0x7fffef, 23,
  0xfffea, 20, 0x3fffe2, 22, 0x3fffe3, 22, 0x3fffe4, 22, 0x7ffff0, 23, 0x3fffe5, 22, 0x3fffe6, 22, 0x7ffff1, 23,
  0x3ffffe0, 26, 0x3ffffe1, 26, 0xfffeb, 20, 0x7fff1, 19, 0x3fffe7, 22, 0x7ffff2, 23, 0x3fffe8, 22, 0x1ffffec, 25,
  0x3ffffe2, 26, 0x3ffffe3, 26, 0x3ffffe4, 26, 0x7ffffde, 27, 0x7ffffdf, 27, 0x3ffffe5, 26, 0xfffff1, 24, 0x1ffffed, 25,
  0x7fff2, 19, 0x1fffe3, 21, 0x3ffffe6, 26, 0x7ffffe0, 27, 0x7ffffe1, 27, 0x3ffffe7, 26, 0x7ffffe2, 27, 0xfffff2, 24,
  0x1fffe4, 21, 0x1fffe5, 21, 0x3ffffe8, 26, 0x3ffffe9, 26, 0xffffffd, 28, 0x7ffffe3, 27, 0x7ffffe4, 27, 0x7ffffe5, 27,
  0xfffec, 20, 0xfffff3, 24, 0xfffed, 20, 0x1fffe6, 21, 0x3fffe9, 22, 0x1fffe7, 21, 0x1fffe8, 21, 0x7ffff3, 23,
  0x3fffea, 22, 0x3fffeb, 22, 0x1ffffee, 25, 0x1ffffef, 25, 0xfffff4, 24, 0xfffff5, 24, 0x3ffffea, 26, 0x7ffff4, 23,
  0x3ffffeb, 26, 0x7ffffe6, 27, 0x3ffffec, 26, 0x3ffffed, 26, 0x7ffffe7, 27, 0x7ffffe8, 27, 0x7ffffe9, 27, 0x7ffffea, 27,
  0x7ffffeb, 27, 0xffffffe, 28, 0x7ffffec, 27, 0x7ffffed, 27, 0x7ffffee, 27, 0x7ffffef, 27, 0x7fffff0, 27, 0x3ffffee, 26,
  0x3fffffff, 30,];

const EOS = 256;
const EMIT = 1 << 16;
const FAIL = 1 << 17;

/**
 * The decoder is a 4-bit state machine (as nghttp2's): a state is an internal node of the code's
 * tree (256 of them, the root is 0), and TRANSITIONS[state * 16 + nibble] holds the next state in
 * bits 0-7, the symbol it completed in bits 8-15 with EMIT set, or FAIL if the nibble runs into EOS.
 * A nibble can complete at most one symbol, as the shortest code has 5 bits. STATE_DEPTH and
 * STATE_ALL_ONES say how far a state is from the root and whether on the all-ones path: a string
 * may end only there, within 7 bits (RFC 7541 §5.2).
 */
const TRANSITIONS = new Uint32Array(256 * 16);
const STATE_DEPTH = new Uint8Array(256);
const STATE_ALL_ONES = new Uint8Array(256);

/** buildTables fills the decoder's tables from HUFFMAN_CODE once, at module load. */
function buildTables(): void {
  // child[node * 2 + bit]: an internal node's id (> 0), a leaf as -(symbol + 1), or 0 for none yet.
  const child = new Int32Array(256 * 2);
  let nodes = 1;
  STATE_ALL_ONES[0] = 1;
  for (let sym = 0; sym <= EOS; sym++) {
    const code = HUFFMAN_CODE[sym * 2] ?? 0;
    const len = HUFFMAN_CODE[sym * 2 + 1] ?? 0;
    let node = 0;
    for (let i = len - 1; i > 0; i--) {
      const bit = (code >>> i) & 1;
      let next = child[node * 2 + bit] ?? 0;
      if (next === 0) {
        next = nodes++;
        child[node * 2 + bit] = next;
        STATE_DEPTH[next] = (STATE_DEPTH[node] ?? 0) + 1;
        STATE_ALL_ONES[next] = bit & (STATE_ALL_ONES[node] ?? 0);
      }
      node = next;
    }
    child[node * 2 + (code & 1)] = -(sym + 1);
  }
  if (nodes !== 256) throw new Error(`HPACK Huffman table is broken: ${nodes} internal nodes`);
  for (let state = 0; state < 256; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let i = 3; i >= 0; i--) {
        const next = child[node * 2 + ((nibble >>> i) & 1)] ?? 0;
        if (next >= 0) {
          node = next;
          continue;
        }
        const sym = -next - 1;
        if (sym === EOS) {
          entry |= FAIL;
          break;
        }
        entry |= EMIT | (sym << 8);
        node = 0;
      }
      TRANSITIONS[state * 16 + nibble] = entry | node;
    }
  }
}
buildTables();

let scratch = Buffer.allocUnsafe(1024);

/**
 * huffmanDecode decodes the Huffman-coded string in bytes[start, end) to a byte (latin1) string.
 * It throws HpackError for a string that contains EOS, ends with more than 7 bits of padding, or
 * whose padding is not all ones (RFC 7541 §5.2).
 */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  const max = Math.ceil(((end - start) * 8) / 5);
  if (scratch.length < max) scratch = Buffer.allocUnsafe(Math.max(max, scratch.length * 2));
  const out = scratch;
  let n = 0;
  let state = 0;
  for (let i = start; i < end; i++) {
    const b = bytes[i] ?? 0;
    const hi = TRANSITIONS[(state << 4) | (b >>> 4)] ?? FAIL;
    if (hi & EMIT) out[n++] = hi >>> 8; // a Buffer keeps the low 8 bits, the symbol
    const e = TRANSITIONS[((hi & 0xff) << 4) | (b & 15)] ?? FAIL;
    if (e & EMIT) out[n++] = e >>> 8;
    if ((hi | e) & FAIL) throw new HpackError("Huffman-coded string contains EOS");
    state = e & 0xff;
  }
  if (state !== 0) {
    if (!STATE_ALL_ONES[state]) throw new HpackError("Huffman-coded string ends with padding that is not all ones");
    if ((STATE_DEPTH[state] ?? 0) > 7) throw new HpackError("Huffman-coded string ends with more than 7 bits of padding");
  }
  return out.toString("latin1", 0, n);
}

/** huffmanEncodedLength is the number of bytes `str` (a byte string, every char < 256) takes Huffman-coded. */
export function huffmanEncodedLength(str: string): number {
  let bits = 0;
  for (let i = 0; i < str.length; i++) bits += HUFFMAN_CODE[(str.charCodeAt(i) & 0xff) * 2 + 1] ?? 0;
  return Math.ceil(bits / 8);
}

/**
 * huffmanEncode writes `str` (a byte string, every char < 256) Huffman-coded into `out` at `offset`,
 * padded with ones, and returns the offset after it; `out` must have huffmanEncodedLength(str) bytes.
 */
export function huffmanEncode(str: string, out: Uint8Array, offset: number): number {
  let acc = 0; // the pending bits, fewer than 8 between symbols, so acc < 2^(7 + 30)
  let bits = 0;
  let o = offset;
  for (let i = 0; i < str.length; i++) {
    const sym = str.charCodeAt(i) & 0xff;
    const len = HUFFMAN_CODE[sym * 2 + 1] ?? 0;
    acc = acc * 2 ** len + (HUFFMAN_CODE[sym * 2] ?? 0);
    bits += len;
    while (bits >= 8) {
      bits -= 8;
      const unit = 2 ** bits;
      const byte = Math.floor(acc / unit);
      out[o++] = byte;
      acc -= byte * unit;
    }
  }
  if (bits > 0) out[o++] = (acc << (8 - bits)) | (0xff >>> bits);
  return o;
}
