import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { abridge } from "../errors/abridge.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import type { PagePosition } from "../files/read/text-page.js";

/**
 * cursorKey signs the read tool's cursors: made once per process, so a cursor holds only in the
 * process that made it (after a restart, or on another replica, it is READ_CURSOR_INVALID and
 * the read goes on by its line offset).
 */
const cursorKey = randomBytes(32);
const cursorVersion = 1;
/** The numbers a cursor carries: byte, line, then the file's dev, ino, size, mtimeMs, ctimeMs. */
const cursorNumbers = 7;
const macBytes = 16;
const cursorBytes = 1 + cursorNumbers * 8 + macBytes;
/** maxCursorLength bounds the cursor argument before it is decoded: base64url of cursorBytes is 98 characters. */
export const maxCursorLength = 128;

/**
 * mintReadCursor is the cursor of a page that starts at `position` of the file read as
 * `clientPath`: the position and the file's identity, with an HMAC over them and the path, so
 * that only a cursor this process made, for that path, is taken back (openReadCursor).
 */
export function mintReadCursor(position: PagePosition, clientPath: string): string {
  const payload = Buffer.alloc(cursorBytes - macBytes);
  payload.writeUInt8(cursorVersion, 0);
  const { dev, ino, size, mtimeMs, ctimeMs } = position.identity;
  [position.byte, position.line, dev, ino, size, mtimeMs, ctimeMs].forEach((n, i) => {
    payload.writeDoubleBE(n, 1 + i * 8);
  });
  return Buffer.concat([payload, macOf(payload, clientPath)]).toString("base64url");
}

/**
 * openReadCursor checks a cursor argument (client-controlled: bounded, base64url, its MAC this
 * process's for `clientPath`) and returns the position it names; anything else is
 * READ_CURSOR_INVALID, saying to read on by the line offset.
 */
export function openReadCursor(cursor: unknown, clientPath: string, functionName: string): PagePosition {
  const refuse = (why: string) =>
    new ToolhostError(
      "READ_CURSOR_INVALID",
      `The cursor for "${abridge(clientPath)}" ${why}; read on by calling ${functionName} with the path and the offset (the line to start at) alone.`,
      { field: "cursor", path: abridge(clientPath) },
    );
  if (typeof cursor !== "string") throw refuse(`is not a string but ${cursor === null ? "null" : typeof cursor}`);
  if (cursor.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw refuse("is not a cursor this server made (not its length or characters)");
  }
  const bytes = Buffer.from(cursor, "base64url");
  if (bytes.length !== cursorBytes || bytes.readUInt8(0) !== cursorVersion) {
    throw refuse("is not a cursor this server made (not its length or version)");
  }
  const payload = bytes.subarray(0, cursorBytes - macBytes);
  if (!timingSafeEqual(bytes.subarray(cursorBytes - macBytes), macOf(payload, clientPath))) {
    throw refuse(
      "was not made by this server process for this path (altered, for another path, by another server process or replica, or before a restart)",
    );
  }
  const n = (i: number) => payload.readDoubleBE(1 + i * 8);
  const [byte, line] = [n(0), n(1)];
  if (!Number.isSafeInteger(byte) || byte < 0 || !Number.isSafeInteger(line) || line < 0) {
    throw refuse("names no position in a file");
  }
  return { byte, line, identity: { dev: n(2), ino: n(3), size: n(4), mtimeMs: n(5), ctimeMs: n(6) } };
}

function macOf(payload: Uint8Array, clientPath: string): Buffer {
  return createHmac("sha256", cursorKey).update(payload).update(clientPath, "utf8").digest().subarray(0, macBytes);
}
