import { HpackError } from "./hpack-error.js";
import { huffmanEncode, huffmanEncodedLength } from "./hpack-huffman.js";
import { HPACK_STATIC_TABLE } from "./hpack-static-table.js";

/** NAME_CHAR marks the chars of a field name: lowercase token characters (RFC 9110 tchar). */
const NAME_CHAR = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~") NAME_CHAR[c.charCodeAt(0)] = 1;
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

/** NameInfo is what the encoder knows of a field name it has checked. */
interface NameInfo {
  pseudo: boolean;
  /** The name's first static table index, 0 if none. */
  index: number;
  /** The static table's values for the name, with their indexes. */
  values: Map<string, number> | undefined;
  /** 0x10 for "never indexed", 0x00 for "without indexing". */
  flags: number;
}

/** NAMES caches the names encode has checked, so a name is checked and looked up once (up to 512 names). */
const NAMES = new Map<string, NameInfo>();

/** nameInfo checks `name` (throwing HpackError for an invalid one) and says how to encode it. */
function nameInfo(name: string): NameInfo {
  let info = NAMES.get(name);
  if (info) return info;
  const s = STATIC_INDEX.get(name);
  info = { pseudo: isPseudoHeader(name), index: s?.index ?? 0, values: s?.values, flags: SENSITIVE.has(name) ? 0x10 : 0 };
  if (NAMES.size < 512) NAMES.set(name, info);
  return info;
}

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
    const list = Array.isArray(headers) ? (headers as readonly (readonly [string, string])[]) : [...headers];
    // First pass: check every field and size the block, so it is written once, in place.
    let size = (prefix?.length ?? 0) + (suffix?.length ?? 0);
    let regular = false;
    // Indexed loops, not `for (const [name, value] of ...)`: destructuring runs the iterator protocol.
    for (let i = 0; i < list.length; i++) {
      const name = list[i]?.[0] ?? "";
      const value = list[i]?.[1] ?? "";
      const info = nameInfo(name);
      if (!info.pseudo) regular = true;
      else if (regular) throw new HpackError(`pseudo-header ${name} after a regular header field`);
      checkValue(name, value);
      if (info.values?.has(value)) {
        size += 1;
        continue;
      }
      size += (info.index ? integerLength(4, info.index) : 1 + this.stringLength(name)) + this.stringLength(value);
    }
    const out = Buffer.allocUnsafe(size);
    let o = 0;
    if (prefix) {
      out.set(prefix, 0);
      o = prefix.length;
    }
    for (let i = 0; i < list.length; i++) {
      const name = list[i]?.[0] ?? "";
      const value = list[i]?.[1] ?? "";
      const info = nameInfo(name);
      const index = info.values?.get(value);
      if (index !== undefined) {
        out[o++] = 0x80 | index; // every static index is below 127: one byte
        continue;
      }
      if (info.index) {
        o = writeInteger(out, o, 4, info.flags, info.index);
      } else {
        out[o++] = info.flags;
        o = this.writeString(out, o, name);
      }
      o = this.writeString(out, o, value);
    }
    if (suffix) out.set(suffix, o);
    if (o + (suffix?.length ?? 0) !== size) throw new Error(`HpackEncoder sized ${size} bytes but wrote ${o}`);
    return out;
  }

  /** stringLength is the bytes writeString takes for `str`. */
  private stringLength(str: string): number {
    const length = this.huffman ? Math.min(huffmanEncodedLength(str), str.length) : str.length;
    return integerLength(7, length) + length;
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

/**
 * isPseudoHeader says whether `name` is a pseudo-header (":" and lowercase letters) and throws
 * HpackError if it is neither that nor a lowercase token; a loop is cheaper than a regex here.
 */
function isPseudoHeader(name: string): boolean {
  const pseudo = name.charCodeAt(0) === 0x3a;
  let ok = name.length > (pseudo ? 1 : 0);
  for (let i = pseudo ? 1 : 0; i < name.length && ok; i++) {
    const c = name.charCodeAt(i);
    ok = pseudo ? c >= 0x61 && c <= 0x7a : c < 128 && NAME_CHAR[c] === 1;
  }
  if (!ok) throw new HpackError(`invalid header name ${JSON.stringify(name)}: HTTP/2 field names are lowercase tokens`);
  return pseudo;
}

/** checkValue throws HpackError if `value` has CR, LF, NUL or a char above U+00FF. */
function checkValue(name: string, value: string): void {
  let ok = true;
  if (value.length > 64) ok = !INVALID_VALUE.test(value);
  else {
    for (let i = 0; i < value.length && ok; i++) {
      const c = value.charCodeAt(i);
      ok = c !== 0 && c !== 10 && c !== 13 && c < 256;
    }
  }
  if (!ok) throw new HpackError(`invalid value for header ${name}: it contains CR, LF, NUL or a char above U+00FF`);
}

/** integerLength is the bytes writeInteger takes for `value` with an N-bit prefix. */
function integerLength(prefix: number, value: number): number {
  const mask = (1 << prefix) - 1;
  if (value < mask) return 1;
  let n = 2;
  for (let rest = value - mask; rest >= 128; rest = Math.floor(rest / 128)) n++;
  return n;
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
