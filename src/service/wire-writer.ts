/**
 * The protobuf wire primitives of the hand-rolled reply encoders (file-tools/list-page-wire.ts,
 * file-tools/stat-reply-wire.ts): each writes into a buffer sized beforehand by its *Length
 * twin and returns the offset after what it wrote. Their tests compare every encoder with
 * protobuf-es's toBinary on random messages.
 */

/** The Timestamp of a time in ms, as timestampFromDate makes it: floored seconds, nanos >= 0. */
export function timestampLength(ms: number): number {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms - seconds * 1000) * 1_000_000;
  return (seconds === 0 ? 0 : 1 + int64Length(seconds)) + (nanos === 0 ? 0 : 1 + varintLength(nanos));
}

export function writeTimestamp(buffer: Buffer, start: number, ms: number): number {
  let at = start;
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms - seconds * 1000) * 1_000_000;
  if (seconds !== 0) {
    buffer[at++] = 0x08; // seconds = 1, int64
    at = seconds > 0 ? writeVarint(buffer, at, seconds) : writeNegativeInt64(buffer, at, seconds);
  }
  if (nanos !== 0) {
    buffer[at++] = 0x10; // nanos = 2
    at = writeVarint(buffer, at, nanos);
  }
  return at;
}

/** varintLength is the size of a non-negative integer (at most 2^53) as a varint. */
export function varintLength(value: number): number {
  let n = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) n++;
  return n;
}

/** A negative int64 is its 64-bit two's complement: always ten bytes. */
function int64Length(value: number): number {
  return value < 0 ? 10 : varintLength(value);
}

export function writeVarint(buffer: Buffer, start: number, value: number): number {
  let at = start;
  let v = value;
  while (v >= 0x80) {
    buffer[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buffer[at++] = v;
  return at;
}

function writeNegativeInt64(buffer: Buffer, start: number, value: number): number {
  let at = start;
  let v = BigInt.asUintN(64, BigInt(value));
  while (v >= 0x80n) {
    buffer[at++] = Number(v & 0x7fn) | 0x80;
    v >>= 7n;
  }
  buffer[at++] = Number(v);
  return at;
}

/** utf8Length is Buffer.byteLength(s) (lone surrogates count as U+FFFD, as TextEncoder writes them). */
export function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, "utf8");
  }
  return s.length;
}

/** writeString writes `s`, `bytes` long in UTF-8; an ASCII name (bytes === length) by hand. */
export function writeString(buffer: Buffer, at: number, s: string, bytes: number): number {
  if (bytes === s.length) {
    for (let i = 0; i < bytes; i++) buffer[at + i] = s.charCodeAt(i);
  } else {
    buffer.write(s, at, bytes, "utf8");
  }
  return at + bytes;
}
