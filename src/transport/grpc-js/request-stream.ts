import type { Readable } from "node:stream";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { Metadata } from "@grpc/grpc-js";
import { decodeRequest } from "../grpc/decode-request.js";
import type { CallContext } from "./call-context.js";

/**
 * requestStream presents a grpc-js client stream to a handler as an AsyncIterable of messages
 * that ends only on a real half-close.
 *
 * grpc-js destroys the stream on a client cancel, which can look like a plain end; a handler that
 * took it as one would commit a half-sent upload. So after the last message this checks whether
 * the call was cancelled and throws CANCELED instead of ending.
 */
export function requestStream<Desc extends DescMessage>(
  call: Readable & { cancelled: boolean; sendMetadata(metadata: Metadata): void },
  schema: Desc,
  context: CallContext,
): AsyncIterable<MessageShape<Desc>> {
  // grpc-js reads one more message whenever the object-mode buffer is under its high-water mark
  // of 16; at 16 MiB per message that is 256 MiB per upload. Two keeps an upload's memory near two
  // messages. There is no public option for it.
  const state = (call as unknown as { _readableState?: { highWaterMark: number } })._readableState;
  if (state !== undefined) {
    state.highWaterMark = 2;
  }
  const signal = context.handler.signal;
  return {
    async *[Symbol.asyncIterator]() {
      // destroyOnReturn: false, because a plain for-await destroys the stream when it ends, and
      // for a bidi call that also destroys the response side before the status is sent.
      const chunks = call.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = (await chunks.next()) as IteratorResult<Buffer>;
        } catch (err) {
          throw cancelled(err);
        }
        if (next.done === true) {
          break;
        }
        context.bytesIn += next.value.byteLength;
        // Outside the try: a malformed message is the client's INVALID_ARGUMENT, not a cancel.
        yield decodeRequest(schema, next.value);
      }
      // A Node.js HTTP/2 client cancels with END_STREAM followed at once by RST_STREAM, and grpc-js
      // reports the END_STREAM as a half-close before it handles the reset. A repeated
      // sendMetadata is a no-op on a live call but makes grpc-js check for a reset, and a few
      // turns of the event loop let the 'cancelled' of a reset in the same read arrive; measured,
      // it arrives on the second. A client that half-closes and cancels later did finish sending.
      call.sendMetadata(new Metadata());
      for (let turn = 0; turn < 3; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        if (call.cancelled || signal.aborted) {
          throw cancelled(undefined);
        }
      }
    },
  };
}

function cancelled(cause: unknown): ConnectError {
  return new ConnectError(
    "The client cancelled the stream before half-closing it; nothing was committed.",
    Code.Canceled,
    undefined,
    undefined,
    cause,
  );
}
