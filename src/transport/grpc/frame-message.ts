import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { headroomOf } from "../../files/read/chunk-buffers.js";
import { textPartBytes } from "../../files/read/text-part.js";
import { encodedReplyOf, hasReplyHeadroom, replyHeadroom } from "../../service/reply-encoded-ahead.js";
import { encodeMessage, lengthDelimitedHeader, onlyOneofName } from "../message-codec.js";

/** grpcPrefixBytes is the size of the gRPC message prefix: a compressed flag and a uint32 length. */
const grpcPrefixBytes = 5;

/**
 * FramedMessage is one whole gRPC message frame (prefix and protobuf bytes) in one buffer, and
 * the file chunk it carries, if any, for the caller to release once the frame is on the socket.
 */
export interface FramedMessage {
  readonly frame: Buffer;
  readonly chunk: Uint8Array | undefined;
}

/**
 * frameMessage encodes a response as a whole gRPC frame: the 5-byte prefix, then the message.
 *
 * A bytes chunk read with headroom (chunk-buffers.ts) gets its protobuf field header and the
 * gRPC prefix written into the spare bytes in front of it, so the frame is a view of the very
 * buffer the file was read into: no copy at all on the read hot path. A text chunk read as valid
 * UTF-8 (text-part.ts) is framed the same way, and so is a reply encoded ahead with room in
 * front (sendEncoded: a listing's page). Any other chunk is copied once behind its
 * headers; anything else is encoded and copied once behind a prefix, as grpc-js itself would.
 */
export function frameMessage(schema: DescMessage, value: unknown): FramedMessage {
  const ahead = encodedReplyOf(value);
  if (ahead !== undefined && hasReplyHeadroom(ahead) && replyHeadroom === grpcPrefixBytes) {
    const frame = Buffer.from(ahead.buffer, ahead.byteOffset - grpcPrefixBytes, grpcPrefixBytes + ahead.byteLength);
    writePrefix(frame, ahead.byteLength);
    return { frame, chunk: undefined };
  }
  const chunk = bytesChunkOf(schema, value);
  if (chunk !== undefined) {
    const header = lengthDelimitedHeader(chunk.fieldNumber, chunk.data.byteLength);
    const front = grpcPrefixBytes + header.length;
    if (headroomOf(chunk.data) >= front) {
      const data = chunk.data;
      const frame = Buffer.from(data.buffer, data.byteOffset - front, front + data.byteLength);
      writePrefix(frame, header.length + data.byteLength);
      frame.set(header, grpcPrefixBytes);
      return { frame, chunk: data };
    }
    const frame = Buffer.allocUnsafe(front + chunk.data.byteLength);
    writePrefix(frame, header.length + chunk.data.byteLength);
    frame.set(header, grpcPrefixBytes);
    frame.set(chunk.data, front);
    return { frame, chunk: undefined };
  }
  const message = encodeMessage(schema, value);
  const frame = Buffer.allocUnsafe(grpcPrefixBytes + message.byteLength);
  writePrefix(frame, message.byteLength);
  frame.set(message, grpcPrefixBytes);
  return { frame, chunk: undefined };
}

function writePrefix(frame: Buffer, length: number): void {
  frame[0] = 0; // not compressed
  frame.writeUInt32BE(length, 1);
}

/** bytesChunkOf finds the bytes of a message that is nothing but a oneof set to a bytes field. */
function bytesChunkOf(schema: DescMessage, value: unknown): { fieldNumber: number; data: Uint8Array } | undefined {
  const oneofName = onlyOneofName(schema);
  if (oneofName === undefined) {
    return undefined;
  }
  const part = (value as Record<string, { case?: string; value?: unknown } | undefined>)[oneofName];
  if (part?.case === undefined) {
    return undefined;
  }
  const field = schema.fields.find((f) => f.localName === part.case);
  if (field?.fieldKind !== "scalar") {
    return undefined;
  }
  // A text chunk whose UTF-8 bytes are known (text-part.ts) is framed from those bytes: a string
  // field is length-delimited UTF-8 on the wire, exactly like bytes. Its `value` is never read.
  const text = field.scalar === ScalarType.STRING ? textPartBytes(part) : undefined;
  if (text !== undefined) {
    return { fieldNumber: field.number, data: text };
  }
  if (field.scalar !== ScalarType.BYTES || !(part.value instanceof Uint8Array)) {
    return undefined;
  }
  return { fieldNumber: field.number, data: part.value };
}
