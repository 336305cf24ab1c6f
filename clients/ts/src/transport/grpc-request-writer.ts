import type { ClientHttp2Stream } from "node:http2";
import { create, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { frameMessage } from "./grpc-envelope.js";

/** sendSingle sends the request message(s) of a server-streaming call with its half-close. */
export async function sendSingle<I extends DescMessage>(
  stream: ClientHttp2Stream,
  input: AsyncIterable<MessageShape<I>>,
  schema: I,
): Promise<void> {
  const frames: Buffer[] = [];
  const it = input[Symbol.asyncIterator]();
  for (let r = await it.next(); !r.done; r = await it.next()) {
    frames.push(frameMessage(toBinary(schema, create(schema, r.value))));
  }
  stream.end(frames.length === 1 ? frames[0] : Buffer.concat(frames));
}

/** sendAll writes the request messages of a client- or bidi-streaming call as they come, with back-pressure. */
export async function sendAll<I extends DescMessage>(
  stream: ClientHttp2Stream,
  input: AsyncIterable<MessageShape<I>>,
  schema: I,
): Promise<void> {
  const it = input[Symbol.asyncIterator]();
  let finished = false;
  // A call that ends early (refused, cancelled) tells the source to stop, as Connect does.
  stream.once("close", () => {
    if (!finished) void it.return?.().catch(() => {});
  });
  try {
    for (let r = await it.next(); !r.done; r = await it.next()) {
      if (stream.destroyed || stream.writableEnded) {
        void it.return?.().catch(() => {});
        return;
      }
      if (!stream.write(frameMessage(toBinary(schema, create(schema, r.value))))) {
        await drainOrClose(stream);
      }
    }
  } finally {
    finished = true;
  }
  if (!stream.destroyed && !stream.writableEnded) {
    stream.end();
  }
}

/** drainOrClose waits until the stream can take more data or has closed. */
function drainOrClose(stream: ClientHttp2Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
