import { isToolhostError, ToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { parseSha256Field } from "../content-hash.js";
import type { WrittenContent } from "./atomic-write.js";
import { commitWrite, parseFileMode, type WriteResult, type WriteTargetOptions } from "./commit-write.js";
import type { AtomicFsOps } from "./fs-ops.js";
import { parsePreconditions } from "./preconditions.js";
import { PreviousContentHash } from "./previous-content-hash.js";

/** UploadHeaderOptions is an UploadFile header in domain terms. */
export interface UploadHeaderOptions extends WriteTargetOptions {
  /** When set, exactly this many bytes must arrive, or nothing changes. */
  readonly expectedSize?: number | undefined;
  /** When set, the bytes that arrive must have this SHA-256, or nothing changes. */
  readonly expectedSha256?: string | undefined;
}

/** UploadRunOptions are the call's own controls. */
export interface UploadRunOptions {
  /** The call's cancellation: aborting removes the temporary file and keeps the target. */
  readonly signal?: AbortSignal | undefined;
  readonly fsOps?: AtomicFsOps | undefined;
}

/**
 * uploadFile streams `chunks` straight into a temporary file beside the target, so memory stays
 * bounded whatever the size, and commits it atomically once the stream ends and the header's
 * checks pass. A stream that breaks, is cancelled or fails a check leaves the target untouched.
 */
export async function uploadFile(
  sandbox: Sandbox,
  header: UploadHeaderOptions,
  chunks: AsyncIterable<Uint8Array>,
  run: UploadRunOptions = {},
): Promise<WriteResult> {
  const clientPath = header.path;
  const mode = parseFileMode(header.mode, clientPath);
  const preconditions = parsePreconditions(header.ifSha256, header.mustNotExist);
  const expectedSha256 = parseSha256Field("expected_sha256", header.expectedSha256);
  const expectedSize = header.expectedSize;
  if (expectedSize !== undefined && (!Number.isSafeInteger(expectedSize) || expectedSize < 0)) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `expected_size ${expectedSize} for '${clientPath}' is not a byte count.`,
      { path: clientPath, field: "expected_size" },
    );
  }
  const resolved = await sandbox.resolveForWrite(clientPath);
  const source = expectedSize === undefined ? chunks : stopPastSize(chunks, expectedSize, clientPath);
  // The content replaced is hashed while the new bytes arrive, not after (previous-content-hash.ts).
  const previous = resolved.exists ? new PreviousContentHash(sandbox, clientPath) : undefined;
  try {
    return await commitWrite(sandbox, resolved, source, {
      mode,
      createParents: header.createParents ?? true,
      preconditions,
      maxPathDepth: header.maxPathDepth,
      signal: run.signal,
      fsOps: run.fsOps,
      checkWritten: (written) => checkUpload(clientPath, written, expectedSize, expectedSha256),
      hashCurrent: previous?.hashCurrent,
    });
  } catch (err) {
    if (isToolhostError(err, "HASH_FAILED")) {
      throw new ToolhostError(
        "HASH_FAILED",
        `Upload of '${clientPath}' failed: the server's hashing thread stopped while it hashed the upload, so its sha256 cannot be trusted; nothing was changed. Resend the file.`,
        { path: clientPath },
        { cause: err },
      );
    }
    throw err;
  } finally {
    previous?.stop();
  }
}

/** stopPastSize fails the upload as soon as more bytes arrive than announced, not at the end. */
async function* stopPastSize(
  chunks: AsyncIterable<Uint8Array>,
  expectedSize: number,
  clientPath: string,
): AsyncIterable<Uint8Array> {
  let received = 0;
  for await (const chunk of chunks) {
    received += chunk.byteLength;
    if (received > expectedSize) {
      throw sizeMismatch(clientPath, expectedSize, `more than ${expectedSize}`);
    }
    yield chunk;
  }
}

function checkUpload(
  clientPath: string,
  written: WrittenContent,
  expectedSize: number | undefined,
  expectedSha256: string | undefined,
): void {
  if (expectedSize !== undefined && written.size !== expectedSize) {
    throw sizeMismatch(clientPath, expectedSize, String(written.size));
  }
  if (expectedSha256 !== undefined && written.sha256 !== expectedSha256) {
    throw new ToolhostError(
      "UPLOAD_MISMATCH",
      `Upload of '${clientPath}' does not match its header: expected_sha256 is ${expectedSha256} but the ${written.size} bytes received have sha256 ${written.sha256}; nothing was changed. Resend the file.`,
      { path: clientPath, expectedSha256, actualSha256: written.sha256 },
    );
  }
}

function sizeMismatch(clientPath: string, expected: number, received: string): ToolhostError {
  return new ToolhostError(
    "UPLOAD_MISMATCH",
    `Upload of '${clientPath}' does not match its header: expected_size is ${expected} bytes but ${received} bytes were received; nothing was changed. Resend the file.`,
    { path: clientPath, expectedSize: String(expected), receivedSize: received },
  );
}
