import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

/** encodedAhead holds the wire bytes of replies a handler encoded before it returned them. */
const encodedAhead = new WeakMap<object, Uint8Array>();

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

/** encodedReplyOf is the bytes encodeReplyAhead made for this reply; undefined for any other. */
export function encodedReplyOf(reply: unknown): Uint8Array | undefined {
  return typeof reply === "object" && reply !== null ? encodedAhead.get(reply) : undefined;
}
