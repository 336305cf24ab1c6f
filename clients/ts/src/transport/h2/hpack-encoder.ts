import { HpackError } from "./hpack-error.js";
import { huffmanEncode, huffmanEncodedLength } from "./hpack-huffman.js";
import { HPACK_STATIC_TABLE } from "./hpack-static-table.js";

/** A field name: lowercase token characters (RFC 9110 tchar), or a pseudo-header's ":" and letters. */
const VALID_NAME = /^(?::[a-z]+|[a-z0-9!#$%&'*+\-.^_`|~]+)$/;
/** What a field value may not contain: CR, LF, NUL (header injection), or a char that is not a byte. */
const INVALID_VALUE = /[\0\r\n]|[^\0-\xff]/;
/** Names whose values are sent "never indexed" (RFC 7541 §7.1.3) so no intermediary indexes them. */
const SENSITIVE = new Set(["authorization", "proxy-authorization", "cookie"]);

/** STATIC_INDEX maps a static table name to its first index and its (value → index) pairs. */
const STATIC_INDEX = new Map<string, { index: number; values: Map<string, number> }>();
HPACK_STATIC_TABLE.forEach(([name, value], i) => {
  let e = STATIC_INDEX.get(name);
  if (!e) STATIC_INDEX.set(name, (e = { index: i + 1, values: new Map() }));
  if (!e.values.has(value)) e.values.set(value, i + 1);
});

let scratch = Buffer.allocUnsafe(4096);

/**
 * HpackEncoder encodes header lists to HPACK header blocks (RFC 7541) without ever adding to the
 * peer's dynamic table, so its blocks do not depend on each other or on the peer's
 * SETTINGS_HEADER_TABLE_SIZE: a (name, value) pair in the static table is sent as its index, a name
 * in it with a literal value, others as literal name and value, all "without indexing" (authorization
 * and cookie "never indexed"). Because blocks are stateless, blocks concatenated are one valid
 * block: encode a request's constant fields once with encodeHeaderPrefix and pass them as `prefix`
 * (pseudo-headers: :method, :scheme, :authority) and `suffix` (regular fields: content-type, te,
 * user-agent) to encode with the per-call fields (:path, grpc-timeout). Pseudo-headers must come
 * before regular fields (RFC 7540 §8.1.2.1), which is why a constant part has two pieces.
 */
export class HpackEncoder {
  /** @param huffman whether to Huffman-code strings where that is shorter (costs a pass per string). */
  constructor(private readonly huffman = false) {}

  /**
   * encode returns the header block for `headers`, between `prefix` and `suffix` (blocks from an
   * HpackEncoder or encodeHeaderPrefix) if given. It throws HpackError for a name that is empty, has
   * an uppercase or other character not allowed in an HTTP/2 field name, for a pseudo-header after a
   * regular field, and for a value with CR, LF, NUL or a character above U+00FF.
   */
  encode(headers: Iterable<readonly [name: string, value: string]>, prefix?: Uint8Array, suffix?: Uint8Array): Buffer {
    let out = scratch;
    let o = 0;
    let regular = false;
    for (const [name, value] of headers) {
      if (!VALID_NAME.test(name)) throw new HpackError(`invalid header name ${JSON.stringify(name)}: HTTP/2 field names are lowercase tokens`);
      if (name.charCodeAt(0) !== 0x3a) regular = true;
      else if (regular) throw new HpackError(`pseudo-header ${name} after a regular header field`);
      if (INVALID_VALUE.test(value)) throw new HpackError(`invalid value for header ${name}: it contains CR, LF, NUL or a char above U+00FF`);
      // 1 byte of representation + up to 2 of name index, 2 × (5 bytes of length + the string)
      const need = o + 13 + name.length + value.length;
      if (need > out.length) {
        const grown = Buffer.allocUnsafe(Math.max(need, out.length * 2));
        out.copy(grown, 0, 0, o);
        out = scratch = grown;
      }
      const s = STATIC_INDEX.get(name);
      const index = s?.values.get(value);
      if (index !== undefined) {
        out[o++] = 0x80 | index; // every static index is below 127: one byte
        continue;
      }
      const flags = SENSITIVE.has(name) ? 0x10 : 0x00;
      if (s) {
        o = writeInteger(out, o, 4, flags, s.index);
      } else {
        out[o++] = flags;
        o = this.writeString(out, o, name);
      }
      o = this.writeString(out, o, value);
    }
    const pre = prefix?.length ?? 0;
    const block = Buffer.allocUnsafe(pre + o + (suffix?.length ?? 0));
    if (prefix) block.set(prefix, 0);
    out.copy(block, pre, 0, o);
    if (suffix) block.set(suffix, pre + o);
    return block;
  }

  /** writeString writes a string literal (RFC 7541 §5.2), Huffman-coded if enabled and shorter. */
  private writeString(out: Buffer, o: number, str: string): number {
    if (this.huffman) {
      const length = huffmanEncodedLength(str);
      if (length < str.length) return huffmanEncode(str, out, writeInteger(out, o, 7, 0x80, length));
    }
    o = writeInteger(out, o, 7, 0x00, str.length);
    if (str.length > 32) return o + out.write(str, o, "latin1");
    for (let i = 0; i < str.length; i++) out[o++] = str.charCodeAt(i);
    return o;
  }
}

/**
 * encodeHeaderPrefix encodes `headers` once, Huffman-coded where shorter, for a caller to keep and
 * pass as encode's `prefix` (:method, :scheme, :authority) or `suffix` (content-type, te,
 * user-agent) on every call, so a call encodes only its own fields (:path, grpc-timeout).
 */
export function encodeHeaderPrefix(headers: Iterable<readonly [name: string, value: string]>): Buffer {
  return new HpackEncoder(true).encode(headers);
}

/** writeInteger writes `value` with an N-bit prefix after `flags` (RFC 7541 §5.1); returns the new offset. */
function writeInteger(out: Uint8Array, o: number, prefix: number, flags: number, value: number): number {
  const mask = (1 << prefix) - 1;
  if (value < mask) {
    out[o++] = flags | value;
    return o;
  }
  out[o++] = flags | mask;
  let rest = value - mask;
  while (rest >= 128) {
    out[o++] = (rest % 128) | 0x80;
    rest = Math.floor(rest / 128);
  }
  out[o++] = rest;
  return o;
}
