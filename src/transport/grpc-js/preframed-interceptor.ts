import type { ServerInterceptingCall, ServerInterceptingCallInterface, ServerInterceptor } from "@grpc/grpc-js";
import { unframe } from "../grpc/frame-message.js";

/** PreframingCall is the part of grpc-js's BaseServerInterceptingCall this module replaces. */
interface PreframingCall {
  serializeMessage?: (value: unknown) => Buffer;
}

/**
 * sendPreframed is a grpc-js server interceptor that lets the methods whose responseSerialize
 * is `unframe` hand grpc-js whole gRPC frames (frame-message.ts) that it writes to the HTTP/2
 * stream as they are.
 *
 * grpc-js serialises every response into a fresh buffer 5 bytes longer and copies the message
 * into it to put the gRPC prefix in front (BaseServerInterceptingCall.serializeMessage): a second
 * full copy of every 1 MiB chunk of a streamed read, about 16% of the server's CPU, and a new
 * 1 MiB allocation per chunk. grpc-js has no option to skip it, and node_modules is not ours to
 * patch, so this replaces that one method on each call of those methods (the first interceptor
 * receives the base call itself) with one that returns the frame already built. Should a future
 * grpc-js rename the method or wrap the base call, nothing is replaced, and grpc-js frames the
 * `unframe` view itself: correct, only with the old copy. test/transport/preframed.test.ts
 * checks that the replacement is in place with this grpc-js.
 *
 * Upstream, this is a serializer that returns a frame (e.g. a `grpc-node.preframed` method
 * option); grpc-go has the same with its PreparedMsg.
 */
export const sendPreframed: ServerInterceptor = (method, call) => {
  if (method.responseSerialize === unframe) {
    const base = call as ServerInterceptingCallInterface & PreframingCall;
    if (typeof base.serializeMessage === "function") {
      base.serializeMessage = (frame: unknown) => frame as Buffer;
      preframedCalls++;
    } else {
      preframingMissed = true;
    }
  }
  // grpc-js chains whatever an interceptor returns as the next call; wrapping every call in a
  // pass-through ServerInterceptingCall (what the type asks for) would only add a hop per message.
  return call as ServerInterceptingCall;
};

let preframedCalls = 0;
let preframingMissed = false;

/**
 * framesPassThrough tells whether grpc-js writes the frames of `unframe` methods as they are: true
 * once sendPreframed has set up a call, and as long as it has never failed to (a grpc-js whose
 * base call it does not recognise). Several frames may then be handed over as one message
 * (coalesce-writes.ts); otherwise grpc-js would frame them again as one.
 */
export function framesPassThrough(): boolean {
  return preframedCalls > 0 && !preframingMissed;
}

/** preframedCallCount is how many calls sendPreframed has set up, for tests and benchmarks. */
export function preframedCallCount(): number {
  return preframedCalls;
}
