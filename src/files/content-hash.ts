import * as crypto from "node:crypto";
import { createHash, type Hash } from "node:crypto";
import { ToolhostError } from "../errors/toolhost-error.js";
import type { ReadHandle } from "../sandbox/sandbox.js";

/**
 * oneShotHash is crypto.hash (Node 20.12+): one native call, without the Hash object, its
 * stream machinery and the three calls createHash takes (~2-3 us less per hash, and an edit makes
 * several). Undefined on older Node 20, where createHash is used.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: Uint8Array | string, encoding: "hex") => string })
  .hash;

/** sha256Hex returns the lowercase hex SHA-256 of some bytes or of a string's UTF-8 encoding. */
export function sha256Hex(content: Uint8Array | string): string {
  return oneShotHash !== undefined
    ? oneShotHash("sha256", content, "hex")
    : createHash("sha256").update(content).digest("hex");
}

/** createSha256 starts an incremental SHA-256, for content that arrives in chunks. */
export function createSha256(): Hash {
  return createHash("sha256");
}

/**
 * sha256OfHandle hashes an opened file from its start to its end, reading through the handle so
 * the bytes hashed are those of the file the sandbox verified, not of whatever the name points to
 * by then.
 */
export async function sha256OfHandle(handle: Pick<ReadHandle, "read">): Promise<string> {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(256 * 1024);
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) {
      return hash.digest("hex");
    }
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}

const sha256Pattern = /^[0-9a-f]{64}$/;

/**
 * parseSha256Field checks a client-supplied hash field: empty means "not set", otherwise it must
 * be 64 hex digits. Upper-case digits are accepted and lowered, since they name the same hash.
 */
export function parseSha256Field(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === "") {
    return undefined;
  }
  const lowered = value.toLowerCase();
  if (!sha256Pattern.test(lowered)) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `${field} must be a SHA-256 as 64 hex digits, got '${value.slice(0, 80)}'; send the sha256 a previous read or write returned.`,
      { field },
    );
  }
  return lowered;
}
