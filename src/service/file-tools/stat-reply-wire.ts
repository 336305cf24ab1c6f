import type { PathStat } from "../../files/stat-path.js";
import { replyHeadroom } from "../reply-encoded-ahead.js";
import { timestampLength, utf8Length, varintLength, writeString, writeTimestamp, writeVarint } from "../wire-writer.js";
import { fileTypeOf } from "./file-type-of.js";

/**
 * encodeStatReply writes a StatFile answer as the wire bytes of its StatFileResponse, the bytes
 * protobuf-es's toBinary makes of the same message (test/service/stat-reply-wire.test.ts checks
 * it on random answers), into one buffer with replyHeadroom spare bytes in front for the gRPC
 * prefix: no message object and no reflective writer on the most frequent small call.
 */
export function encodeStatReply(stat: PathStat): Uint8Array {
  const pathBytes = utf8Length(stat.path);
  const shaBytes = utf8Length(stat.sha256);
  const type = fileTypeOf(stat.type);
  const ms = stat.modified?.getTime();
  const time = ms === undefined ? 0 : timestampLength(ms);
  let total = 0;
  if (pathBytes > 0) total += 1 + varintLength(pathBytes) + pathBytes;
  if (type !== 0) total += 1 + varintLength(type);
  if (stat.size !== 0) total += 1 + varintLength(stat.size);
  if (stat.mode !== 0) total += 1 + varintLength(stat.mode);
  if (ms !== undefined) total += 1 + varintLength(time) + time;
  if (shaBytes > 0) total += 1 + varintLength(shaBytes) + shaBytes;
  if (stat.binary) total += 2;
  if (stat.symlink) total += 2;
  if (stat.hardLinked) total += 2;
  const buffer = Buffer.allocUnsafe(replyHeadroom + total);
  let at = replyHeadroom;
  if (pathBytes > 0) {
    buffer[at++] = 0x0a; // path = 1
    at = writeVarint(buffer, at, pathBytes);
    at = writeString(buffer, at, stat.path, pathBytes);
  }
  if (type !== 0) {
    buffer[at++] = 0x10; // type = 2
    at = writeVarint(buffer, at, type);
  }
  if (stat.size !== 0) {
    buffer[at++] = 0x18; // size = 3
    at = writeVarint(buffer, at, stat.size);
  }
  if (stat.mode !== 0) {
    buffer[at++] = 0x20; // mode = 4
    at = writeVarint(buffer, at, stat.mode);
  }
  if (ms !== undefined) {
    buffer[at++] = 0x2a; // modified = 5, a google.protobuf.Timestamp
    at = writeVarint(buffer, at, time);
    at = writeTimestamp(buffer, at, ms);
  }
  if (shaBytes > 0) {
    buffer[at++] = 0x32; // sha256 = 6
    at = writeVarint(buffer, at, shaBytes);
    at = writeString(buffer, at, stat.sha256, shaBytes);
  }
  if (stat.binary) {
    buffer[at++] = 0x38; // binary = 7
    buffer[at++] = 1;
  }
  if (stat.symlink) {
    buffer[at++] = 0x40; // symlink = 8
    buffer[at++] = 1;
  }
  if (stat.hardLinked) {
    buffer[at++] = 0x48; // hard_linked = 9
    buffer[at++] = 1;
  }
  return buffer.subarray(replyHeadroom, at);
}
