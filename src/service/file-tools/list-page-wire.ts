import type { DirectoryEntryValue, ListPage } from "../../files/list-directory.js";
import { replyHeadroom } from "../reply-encoded-ahead.js";
import { fileTypeOf } from "./stat-file.js";

/**
 * encodeListPage writes a page of a listing as the wire bytes of its ListDirectoryResponse, the
 * bytes protobuf-es's toBinary makes of the same message (test/service/list-page-wire.test.ts
 * checks it on random entries), into one buffer with replyHeadroom spare bytes in front for the
 * gRPC prefix. Field by field, in field-number order, defaults left out (proto3): no message
 * object, no reflection and no per-entry writer fork, which were most of a 1,000-entry
 * listing's CPU (docs/adr/0009-hand-written-reply-encoders.md).
 */
export function encodeListPage(page: ListPage): Uint8Array {
  const entries = page.entries;
  const lengths = new Int32Array(entries.length * 3);
  let total = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const pathBytes = utf8Length(entry.path);
    const nameBytes = utf8Length(entry.name);
    const size = entryLength(entry, pathBytes, nameBytes);
    lengths[i * 3] = pathBytes;
    lengths[i * 3 + 1] = nameBytes;
    lengths[i * 3 + 2] = size;
    total += 1 + varintLength(size) + size;
  }
  const tokenBytes = utf8Length(page.nextPageToken);
  if (tokenBytes > 0) total += 1 + varintLength(tokenBytes) + tokenBytes;
  const buffer = Buffer.allocUnsafe(replyHeadroom + total);
  let at = replyHeadroom;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    buffer[at++] = 0x0a; // entries = 1, length-delimited
    at = writeVarint(buffer, at, lengths[i * 3 + 2]!);
    at = writeEntry(buffer, at, entry, lengths[i * 3]!, lengths[i * 3 + 1]!);
  }
  if (tokenBytes > 0) {
    buffer[at++] = 0x12; // next_page_token = 2
    at = writeVarint(buffer, at, tokenBytes);
    at = writeString(buffer, at, page.nextPageToken, tokenBytes);
  }
  return buffer.subarray(replyHeadroom, at);
}

/** entryLength is the encoded size of one DirectoryEntry, without its own tag and length. */
function entryLength(entry: DirectoryEntryValue, pathBytes: number, nameBytes: number): number {
  let n = 0;
  if (pathBytes > 0) n += 1 + varintLength(pathBytes) + pathBytes;
  if (nameBytes > 0) n += 1 + varintLength(nameBytes) + nameBytes;
  const type = fileTypeOf(entry.type);
  if (type !== 0) n += 1 + varintLength(type);
  if (entry.size !== 0) n += 1 + varintLength(entry.size);
  if (entry.mode !== 0) n += 1 + varintLength(entry.mode);
  if (entry.modified !== undefined) {
    const time = timestampLength(entry.modified.getTime());
    n += 1 + varintLength(time) + time;
  }
  if (entry.symlink) n += 2;
  if (entry.hardLinked) n += 2;
  return n;
}

function writeEntry(
  buffer: Buffer,
  start: number,
  entry: DirectoryEntryValue,
  pathBytes: number,
  nameBytes: number,
): number {
  let at = start;
  if (pathBytes > 0) {
    buffer[at++] = 0x0a; // path = 1
    at = writeVarint(buffer, at, pathBytes);
    at = writeString(buffer, at, entry.path, pathBytes);
  }
  if (nameBytes > 0) {
    buffer[at++] = 0x12; // name = 2
    at = writeVarint(buffer, at, nameBytes);
    at = writeString(buffer, at, entry.name, nameBytes);
  }
  const type = fileTypeOf(entry.type);
  if (type !== 0) {
    buffer[at++] = 0x18; // type = 3, varint
    at = writeVarint(buffer, at, type);
  }
  if (entry.size !== 0) {
    buffer[at++] = 0x20; // size = 4
    at = writeVarint(buffer, at, entry.size);
  }
  if (entry.mode !== 0) {
    buffer[at++] = 0x28; // mode = 5
    at = writeVarint(buffer, at, entry.mode);
  }
  if (entry.modified !== undefined) {
    const ms = entry.modified.getTime();
    buffer[at++] = 0x32; // modified = 6, a google.protobuf.Timestamp
    at = writeVarint(buffer, at, timestampLength(ms));
    at = writeTimestamp(buffer, at, ms);
  }
  if (entry.symlink) {
    buffer[at++] = 0x38; // symlink = 7
    buffer[at++] = 1;
  }
  if (entry.hardLinked) {
    buffer[at++] = 0x40; // hard_linked = 8
    buffer[at++] = 1;
  }
  return at;
}

/** The Timestamp of a time in ms, as timestampFromDate makes it: floored seconds, nanos >= 0. */
function timestampLength(ms: number): number {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms - seconds * 1000) * 1_000_000;
  return (seconds === 0 ? 0 : 1 + int64Length(seconds)) + (nanos === 0 ? 0 : 1 + varintLength(nanos));
}

function writeTimestamp(buffer: Buffer, start: number, ms: number): number {
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
function varintLength(value: number): number {
  let n = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) n++;
  return n;
}

/** A negative int64 is its 64-bit two's complement: always ten bytes. */
function int64Length(value: number): number {
  return value < 0 ? 10 : varintLength(value);
}

function writeVarint(buffer: Buffer, start: number, value: number): number {
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
function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, "utf8");
  }
  return s.length;
}

/** writeString writes `s`, `bytes` long in UTF-8; an ASCII name (bytes === length) by hand. */
function writeString(buffer: Buffer, at: number, s: string, bytes: number): number {
  if (bytes === s.length) {
    for (let i = 0; i < bytes; i++) buffer[at + i] = s.charCodeAt(i);
  } else {
    buffer.write(s, at, bytes, "utf8");
  }
  return at + bytes;
}
