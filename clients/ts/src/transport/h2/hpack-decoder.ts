import { HpackError } from "./hpack-error.js";
import { huffmanDecode } from "./hpack-huffman.js";
import { HPACK_STATIC_TABLE } from "./hpack-static-table.js";

/** ENTRY_OVERHEAD is the 32 bytes RFC 7541 §4.1 adds to a field's name and value lengths. */
const ENTRY_OVERHEAD = 32;
/** MAX_CONTINUATION_BYTES bounds an integer's continuation bytes: 5 carry 35 bits, more than 2^31. */
const MAX_CONTINUATION_BYTES = 5;
const MAX_INTEGER = 0x7fffffff;
const EMPTY = new Uint8Array(0);

/**
 * HpackDecoder decodes HTTP/2 header blocks (RFC 7541) for one connection, keeping the dynamic
 * table the peer's encoder builds. Hand-written: the only npm HPACK library (hpack.js, last released
 * 2018) is a stream API on readable-stream 2, and node:http2's nghttp2 is not reachable from JS.
 * Every malformed or over-limit block throws HpackError, which the connection must treat as a
 * COMPRESSION_ERROR; the decoder's state after an error is undefined.
 */
export class HpackDecoder {
  /** The dynamic table, oldest first: the newest entry (index 62) is the last. */
  private readonly entries: [string, string][] = [];
  private size = 0;
  /** The table size the peer set last with a size update; at most maxTableSize. */
  private capacity: number;
  private block: Uint8Array = EMPTY;
  private pos = 0;

  /**
   * @param maxTableSize our SETTINGS_HEADER_TABLE_SIZE: the largest dynamic table the peer may use.
   * @param maxHeaderListSize the largest decoded header list (RFC 7540 SETTINGS_MAX_HEADER_LIST_SIZE
   *   counting: name + value + 32 bytes a field) a block may produce.
   */
  constructor(
    private readonly maxTableSize = 4096,
    private readonly maxHeaderListSize = 64 * 1024,
  ) {
    this.capacity = maxTableSize;
  }

  /** dynamicTable is a copy of the dynamic table's entries, newest (index 62) first; for tests. */
  get dynamicTable(): readonly (readonly [string, string])[] {
    return this.entries.map(([n, v]) => [n, v] as const).reverse();
  }

  /** dynamicTableSize is the dynamic table's size as RFC 7541 §4.1 counts it. */
  get dynamicTableSize(): number {
    return this.size;
  }

  /**
   * decode decodes one complete header block (HEADERS and its CONTINUATIONs, reassembled) to its
   * fields in order, as byte (latin1) strings, and updates the dynamic table.
   */
  decode(block: Uint8Array): [name: string, value: string][] {
    this.block = block;
    this.pos = 0;
    const fields: [string, string][] = [];
    let listSize = 0;
    while (this.pos < block.length) {
      const b = block[this.pos] ?? 0;
      let field: [string, string];
      if (b & 0x80) {
        field = this.lookup(this.integer(7));
      } else if (b & 0x40) {
        field = this.literal(6);
        this.insert(field);
      } else if (b & 0x20) {
        if (fields.length > 0) throw new HpackError("dynamic table size update after a header field");
        const size = this.integer(5);
        if (size > this.maxTableSize) {
          throw new HpackError(`dynamic table size update to ${size} exceeds the limit ${this.maxTableSize}`);
        }
        this.capacity = size;
        this.evict(0);
        continue;
      } else {
        field = this.literal(4); // without indexing (0000) or never indexed (0001)
      }
      listSize += field[0].length + field[1].length + ENTRY_OVERHEAD;
      if (listSize > this.maxHeaderListSize) {
        throw new HpackError(`header list size exceeds the limit ${this.maxHeaderListSize}`);
      }
      fields.push(field);
    }
    this.block = EMPTY; // not to hold the caller's buffer
    return fields;
  }

  /** lookup is the field at a static or dynamic table index (RFC 7541 §2.3.3). */
  private lookup(index: number): [string, string] {
    if (index === 0) throw new HpackError("header field index 0 is not allowed");
    const s = HPACK_STATIC_TABLE[index - 1];
    if (s) return [s[0], s[1]];
    const d = this.entries[this.entries.length - (index - HPACK_STATIC_TABLE.length)];
    if (!d) throw new HpackError(`header field index ${index} is past the table's ${HPACK_STATIC_TABLE.length + this.entries.length} entries`);
    return [d[0], d[1]];
  }

  /** literal reads a literal field whose name index has an N-bit prefix (0: a literal name follows). */
  private literal(prefix: number): [string, string] {
    const index = this.integer(prefix);
    const name = index === 0 ? this.string() : this.lookup(index)[0];
    return [name, this.string()];
  }

  /** integer reads an integer with an N-bit prefix (RFC 7541 §5.1), at most 2^31 - 1. */
  private integer(prefix: number): number {
    const block = this.block;
    const mask = (1 << prefix) - 1;
    if (this.pos >= block.length) throw new HpackError("header block truncated in an integer");
    let value = (block[this.pos++] ?? 0) & mask;
    if (value < mask) return value;
    for (let i = 0, unit = 1; ; i++, unit *= 128) {
      if (i === MAX_CONTINUATION_BYTES) throw new HpackError("integer has too many continuation bytes");
      if (this.pos >= block.length) throw new HpackError("header block truncated in an integer");
      const b = block[this.pos++] ?? 0;
      value += (b & 0x7f) * unit;
      if (value > MAX_INTEGER) throw new HpackError("integer overflows 2^31 - 1");
      if ((b & 0x80) === 0) return value;
    }
  }

  /** string reads a string literal (RFC 7541 §5.2), raw or Huffman-coded, as a byte string. */
  private string(): string {
    const block = this.block;
    if (this.pos >= block.length) throw new HpackError("header block truncated before a string");
    const huffman = ((block[this.pos] ?? 0) & 0x80) !== 0;
    const length = this.integer(7);
    const start = this.pos;
    const end = start + length;
    if (end > block.length) throw new HpackError(`string of ${length} bytes is past the header block's end`);
    this.pos = end;
    if (huffman) return huffmanDecode(block, start, end);
    return latin1(block, start, end);
  }

  /** insert adds a field to the dynamic table, evicting old ones to make room (RFC 7541 §4.4). */
  private insert(field: [string, string]): void {
    const size = field[0].length + field[1].length + ENTRY_OVERHEAD;
    if (size > this.capacity) {
      this.entries.length = 0;
      this.size = 0;
      return;
    }
    this.evict(size);
    this.entries.push(field);
    this.size += size;
  }

  /** evict drops the oldest entries until `room` more bytes fit in the table's capacity. */
  private evict(room: number): void {
    let drop = 0;
    while (this.size + room > this.capacity) {
      const e = this.entries[drop++];
      if (!e) break;
      this.size -= e[0].length + e[1].length + ENTRY_OVERHEAD;
    }
    if (drop > 0) this.entries.splice(0, drop);
  }
}

/** latin1 is bytes[start, end) as a byte string; short ones without a call into C++. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 24) return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("latin1");
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i] ?? 0);
  return s;
}
