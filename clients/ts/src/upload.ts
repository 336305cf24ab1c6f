import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Client } from "@connectrpc/connect";
import type { FileTools } from "../gen/toolhost/files/v1/file_tools_pb.js";
import type { UploadFileRequest, UploadFileResponse } from "../gen/toolhost/files/v1/write_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { UploadFileRequestSchema } from "../gen/toolhost/files/v1/write_pb.js";
import { toUint64, type Uint64Input } from "./uint64.js";

/** UploadOptions are the header fields of an upload besides the path. */
export interface UploadOptions {
  readonly createParents?: boolean;
  readonly mode?: number;
  readonly ifSha256?: string;
  readonly mustNotExist?: boolean;
  /** The exact size the upload must have, or nothing changes. */
  readonly expectedSize?: Uint64Input;
  /** The lowercase hex SHA-256 the upload must have, or nothing changes. */
  readonly expectedSha256?: string;
  readonly signal?: AbortSignal;
}

/** UploadVerifyError is thrown when the server stored other bytes than the client sent. */
export class UploadVerifyError extends Error {
  override readonly name = "UploadVerifyError";
}

type UploadPart = MessageInitShape<typeof UploadFileRequestSchema>;

/**
 * uploadStream uploads the bytes of `source` (a Node Readable or any async iterable of chunks)
 * to `path`. It hashes the bytes on the way and checks the server's sha256 in the response
 * against them, so a corrupted upload throws UploadVerifyError. Give expectedSize/expectedSha256
 * when known: the server then refuses a mismatch (UPLOAD_MISMATCH) before anything changes.
 */
export async function uploadStream(
  files: Client<typeof FileTools>,
  path: string,
  source: AsyncIterable<Uint8Array | string>,
  options: UploadOptions = {},
): Promise<UploadFileResponse> {
  const hash = createHash("sha256");
  async function* parts(): AsyncGenerator<UploadPart> {
    yield {
      part: {
        case: "header",
        value: {
          path,
          createParents: options.createParents,
          mode: options.mode,
          ifSha256: options.ifSha256 ?? "",
          mustNotExist: options.mustNotExist ?? false,
          expectedSize: options.expectedSize === undefined ? undefined : toUint64(options.expectedSize, "expectedSize"),
          expectedSha256: options.expectedSha256 ?? "",
        },
      },
    };
    for await (const chunk of source) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      hash.update(bytes);
      yield { part: { case: "data", value: bytes } };
    }
  }
  const response = await files.uploadFile(parts(), { signal: options.signal });
  const sent = hash.digest("hex");
  if (response.sha256 !== sent) {
    throw new UploadVerifyError(`upload of ${path}: sent bytes hash to ${sent}, the server stored ${response.sha256}`);
  }
  return response;
}

/**
 * uploadPath uploads a local file. It hashes the file first and sends its size and sha256 in the
 * header, so the server commits only exactly those bytes (a file changing while it is read is
 * UPLOAD_MISMATCH and leaves the target untouched); this reads the file twice.
 */
export async function uploadPath(
  files: Client<typeof FileTools>,
  localPath: string,
  path: string,
  options: UploadOptions = {},
): Promise<UploadFileResponse> {
  const { size } = await stat(localPath);
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(localPath)) {
    hash.update(chunk as Buffer);
  }
  const chunks = createReadStream(localPath, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>;
  return uploadStream(files, path, chunks, { ...options, expectedSize: size, expectedSha256: hash.digest("hex") });
}

export type { UploadFileRequest };
