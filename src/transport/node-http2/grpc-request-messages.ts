import { promisify } from "node:util";
import { gunzip, inflate } from "node:zlib";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeRequest } from "../grpc/decode-request.js";

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** envelopeHeaderBytes is a gRPC message prefix: one flag byte and a four-byte length. */
const envelopeHeaderBytes = 5;

/**
 * grpcRequestMessages cuts a request body (grpc-request-body.ts, which has already checked each
 * prefix's flags and length against the limits, and the body's end) into its messages, each
 * decompressed with the call's grpc-encoding when flagged, and decoded with the method's input
 * schema (INVALID_ARGUMENT for bad bytes). A message inside one chunk is a view of it; one spread
 * over chunks is copied once into a buffer of its announced size.
 */
export async function* grpcRequestMessages<Desc extends DescMessage>(
  body: AsyncIterable<Buffer>,
  schema: Desc,
  encoding: string | undefined,
  limit: number,
): AsyncGenerator<MessageShape<Desc>> {
  const head = Buffer.alloc(envelopeHeaderBytes);
  let headFilled = 0;
  let flags = 0;
  let message: Buffer | undefined;
  let messageFilled = 0;
  for await (const chunk of body) {
    for (let at = 0; at < chunk.byteLength; ) {
      if (message === undefined) {
        let length: number;
        if (headFilled === 0 && chunk.byteLength - at >= envelopeHeaderBytes) {
          flags = chunk[at]!;
          length = chunk.readUInt32BE(at + 1);
          at += envelopeHeaderBytes;
        } else {
          const step = Math.min(envelopeHeaderBytes - headFilled, chunk.byteLength - at);
          chunk.copy(head, headFilled, at, at + step);
          headFilled += step;
          at += step;
          if (headFilled < envelopeHeaderBytes) continue;
          headFilled = 0;
          flags = head[0]!;
          length = head.readUInt32BE(1);
        }
        if (chunk.byteLength - at >= length) {
          const whole = chunk.subarray(at, at + length);
          at += length;
          yield decodeRequest(schema, await unpack(flags, whole, encoding, limit));
          continue;
        }
        message = Buffer.allocUnsafe(length);
        messageFilled = 0;
      }
      const step = Math.min(message.byteLength - messageFilled, chunk.byteLength - at);
      chunk.copy(message, messageFilled, at, at + step);
      messageFilled += step;
      at += step;
      if (messageFilled === message.byteLength) {
        const whole = message;
        message = undefined;
        yield decodeRequest(schema, await unpack(flags, whole, encoding, limit));
      }
    }
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
