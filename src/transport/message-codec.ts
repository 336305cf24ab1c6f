import { create, fromBinary, toBinary, ScalarType, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { encodedReplyOf } from "../service/reply-encoded-ahead.js";

/**
 * encodeMessage serialises a handler's response (a message or a message init) to wire bytes.
 *
 * Streamed chunks take a fast path: a message that is nothing but a oneof whose set member is a
 * bytes field (ReadFileResponse.data, ReadSkillResourceResponse.data) is framed by hand as tag,
 * length and the chunk itself, one copy instead of protobuf-es's writer copy plus concatenation.
 * That is the streamed-read hot path ARCHITECTURE.md allows a hand-tuned serializer for.
 * A reply its handler encoded ahead (encodeReplyAhead: EditFile's, during the folder's fsync)
 * is sent as those bytes.
 */
export function encodeMessage(schema: DescMessage, value: unknown): Buffer {
  const fast = encodeBytesChunk(schema, value);
  if (fast !== undefined) {
    return fast;
  }
  const ahead = encodedReplyOf(value);
  if (ahead !== undefined) {
    return Buffer.from(ahead.buffer, ahead.byteOffset, ahead.byteLength);
  }
  const frozen = Object.isFrozen(value) ? frozenEncodings.get(value as object) : undefined;
  if (frozen !== undefined) {
    return frozen;
  }
  const message = create(schema, value as MessageShape<DescMessage>);
  const bytes = toBinary(schema, message);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (Object.isFrozen(value)) {
    frozenEncodings.set(value as object, buffer);
  }
  return buffer;
}

/**
 * frozenEncodings remembers the bytes of frozen responses (ListTools answers the same 4.7 KB on
 * every call): a frozen object cannot change, so its encoding cannot either, and grpc-js only
 * reads the buffer it is given.
 */
const frozenEncodings = new WeakMap<object, Buffer>();

/** decodeMessage parses wire bytes into a message of the schema. */
export function decodeMessage<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  return fromBinary(schema, bytes);
}

/**
 * carriesBytesChunks tells whether a message type can be a streamed chunk of bytes (only a oneof,
 * with a bytes member): the reply type of ReadFile and ReadSkillResource.
 */
export function carriesBytesChunks(schema: DescMessage): boolean {
  const oneofName = onlyOneofName(schema);
  return (
    oneofName !== undefined && schema.fields.some((f) => f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES)
  );
}

const onlyOneofCache = new WeakMap<DescMessage, string | undefined>();

/** onlyOneofName is the name of a message's one oneof when that oneof holds all its fields. */
export function onlyOneofName(schema: DescMessage): string | undefined {
  if (!onlyOneofCache.has(schema)) {
    const [oneof] = schema.oneofs;
    const only = schema.oneofs.length === 1 && oneof !== undefined && oneof.fields.length === schema.fields.length;
    onlyOneofCache.set(schema, only ? oneof.localName : undefined);
  }
  return onlyOneofCache.get(schema);
}

function encodeBytesChunk(schema: DescMessage, value: unknown): Buffer | undefined {
  const oneofName = onlyOneofName(schema);
  if (oneofName === undefined) {
    return undefined;
  }
  const part = (value as Record<string, { case?: string; value?: unknown } | undefined>)[oneofName];
  if (part?.case === undefined || !(part.value instanceof Uint8Array)) {
    return undefined;
  }
  const field = schema.fields.find((f) => f.localName === part.case);
  if (field?.fieldKind !== "scalar" || field.scalar !== ScalarType.BYTES) {
    return undefined;
  }
  const chunk = part.value;
  const header = lengthDelimitedHeader(field.number, chunk.byteLength);
  const out = Buffer.allocUnsafe(header.length + chunk.byteLength);
  out.set(header, 0);
  out.set(chunk, header.length);
  return out;
}

/**
 * lengthDelimitedHeader is the protobuf header of a length-delimited field (bytes, string or a
 * message): its tag with wire type 2, then the length, both as varints.
 */
export function lengthDelimitedHeader(fieldNumber: number, length: number): number[] {
  const header: number[] = [];
  writeVarint(header, (fieldNumber << 3) | 2);
  writeVarint(header, length);
  return header;
}

function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}
