import type { JsonObject } from "@bufbuild/protobuf";
import { ReadMode, type ReadFileRequest } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { abridge } from "../errors/abridge.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import type { TextPage } from "../files/read/text-page.js";
import { openReadCursor } from "./read-cursor.js";

/**
 * readCursorField is the one argument file_read takes as a tool that ReadFileRequest does not
 * have: the cursor a cut page's notice names, so that the next page starts at the byte where the
 * last one ended instead of counting every line before it again.
 */
export const readCursorField = "cursor";

/** takeReadCursor splits file_read's tool arguments into the ReadFileRequest's and the cursor (undefined when not given). */
export function takeReadCursor(args: JsonObject): { request: JsonObject; cursor: unknown } {
  const { [readCursorField]: cursor, ...request } = args;
  return { request, cursor: cursor === null ? undefined : cursor };
}

/**
 * readPageFor makes a file_read call one page of a paged read: `collectBytes` is what the call
 * collects at most. With a cursor (verified by openReadCursor), the page starts at its position:
 * only in text mode, without tail_lines or a byte range, and at the cursor's line when an offset
 * is given too (0 is no offset); the request's offset becomes the cursor's line.
 */
export function readPageFor(
  request: ReadFileRequest,
  cursor: unknown,
  collectBytes: number,
  functionName: string,
): TextPage {
  if (cursor === undefined) return { start: undefined, collectBytes };
  const start = openReadCursor(cursor, request.path, functionName);
  const refuse = (why: string) =>
    new ToolhostError(
      "READ_CURSOR_INVALID",
      `The cursor for "${abridge(request.path)}" continues a text read at line ${start.line}; ${why}. Send the path and cursor (with offset ${start.line}, or none) to read on.`,
      { field: "cursor", path: abridge(request.path) },
    );
  if (request.mode === ReadMode.BYTES) throw refuse("bytes mode pages by byteOffset, not by a cursor");
  if (request.tailLines !== 0) throw refuse("tailLines reads from the end, not from a cursor");
  if (request.byteOffset !== 0n || request.byteLimit !== undefined)
    throw refuse("byteOffset and byteLimit are for bytes mode");
  if (request.offset !== 0n && request.offset !== BigInt(start.line)) {
    throw refuse(`the offset ${request.offset} is another line`);
  }
  request.offset = BigInt(start.line);
  return { start, collectBytes };
}
