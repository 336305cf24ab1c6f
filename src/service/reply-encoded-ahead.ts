import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

/** encodedAhead holds the wire bytes of replies a handler encoded before it returned them. */
const encodedAhead = new WeakMap<object, Uint8Array>();

/**
 * replyHeadroom is how many spare bytes in front of its bytes a reply sent by sendEncoded leaves
 * for the transport (the 5-byte gRPC message prefix), so its frame is those very bytes.
 */
export const replyHeadroom = 5;

/** withHeadroom are the encodings made ahead with replyHeadroom spare bytes in front. */
const withHeadroom = new WeakSet<Uint8Array>();

/**
 * encodeReplyAhead freezes a handler's reply and encodes it now, so that the gRPC transport
 * sends these bytes when the handler returns it (encodedReplyOf) instead of encoding it then.
 *
 * For a reply that is complete before the handler may answer: EditFile's is known once the new
 * content is renamed into place, and encoding it there overlaps the folder's fsync, which the
 * answer must wait for (~0.1-0.2 ms of the edit's ~2-3 ms while its code is still cold). The
 * reply is frozen, so the bytes cannot go stale; any other host (connect-node) simply encodes
 * the same message itself.
 */
export function encodeReplyAhead<Desc extends DescMessage>(
  schema: Desc,
  reply: MessageShape<Desc>,
): MessageShape<Desc> {
  Object.freeze(reply);
  encodedAhead.set(reply, toBinary(schema, reply));
  return reply;
}

/**
 * sendEncoded freezes `reply` and has the gRPC transport send `bytes`, its encoding made by a
 * hand-rolled writer (list-page-wire.ts), with replyHeadroom spare bytes in front of them. The
 * reply itself may build its fields only when read (CallTool, MCP): the transport never reads them.
 */
export function sendEncoded<T extends object>(reply: T, bytes: Uint8Array): T {
  Object.freeze(reply);
  encodedAhead.set(reply, bytes);
  withHeadroom.add(bytes);
  return reply;
}

/** encodedReplyOf is the bytes encodeReplyAhead or sendEncoded made for this reply; undefined for any other. */
export function encodedReplyOf(reply: unknown): Uint8Array | undefined {
  return typeof reply === "object" && reply !== null ? encodedAhead.get(reply) : undefined;
}

/** hasReplyHeadroom tells whether the transport may write replyHeadroom bytes in front of these. */
export function hasReplyHeadroom(bytes: Uint8Array): boolean {
  return withHeadroom.has(bytes);
}
