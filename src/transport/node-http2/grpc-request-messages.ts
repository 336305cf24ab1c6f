import { promisify } from "node:util";
import { gunzip, inflate } from "node:zlib";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeRequest } from "../grpc/decode-request.js";
import type { RequestEnvelope } from "./grpc-request-body.js";

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/**
 * grpcRequestMessages decodes a request body's whole messages (grpc-request-body.ts, which has
 * already checked each prefix's flags and length against the limits, and the body's end), each
 * decompressed with the call's grpc-encoding when flagged, with the method's input schema
 * (INVALID_ARGUMENT for bad bytes). A bytes field of a decoded message is a view of its message.
 */
export async function* grpcRequestMessages<Desc extends DescMessage>(
  body: AsyncIterable<RequestEnvelope>,
  schema: Desc,
  encoding: string | undefined,
  limit: number,
): AsyncGenerator<MessageShape<Desc>> {
  for await (const { flags, bytes } of body) {
    yield decodeRequest(schema, (flags & 1) === 0 ? bytes : await unpack(flags, bytes, encoding, limit));
  }
}

/** unpack is a message's protobuf bytes: as sent, or decompressed within `limit` bytes. */
export async function unpack(
  flags: number,
  bytes: Buffer,
  encoding: string | undefined,
  limit: number,
): Promise<Buffer> {
  if ((flags & 1) === 0 || bytes.byteLength === 0) return bytes;
  try {
    return encoding === "gzip"
      ? await gunzipAsync(bytes, { maxOutputLength: limit })
      : await inflateAsync(bytes, { maxOutputLength: limit });
  } catch (err) {
    const tooLarge = (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
    throw new ConnectError(
      tooLarge
        ? `A request message is larger than the server's limit of ${limit} bytes once decompressed (grpc-encoding ${encoding}). Send smaller messages.`
        : `A request message flagged compressed could not be decompressed as ${encoding}. Send it compressed with the grpc-encoding the call names, or uncompressed with flag 0.`,
      tooLarge ? Code.ResourceExhausted : Code.InvalidArgument,
      undefined,
      undefined,
      err,
    );
  }
}
