import type { OutgoingHttpHeaders } from "node:http2";
import {
  create,
  toBinary,
  type DescMessage,
  type DescMethodServerStreaming,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { CallOptions } from "@connectrpc/connect";
import { callSignal } from "./call-signal.js";
import { codecFor, type OpenCall } from "./call-opener.js";
import { frameMessage } from "./grpc-envelope.js";
import { GrpcResponseReader } from "./grpc-response-reader.js";
import { StreamedResponse } from "./streamed-response.js";

/** leanCalls is the key under which createHttp2GrpcTransport offers createLeanClient its LeanCalls. */
export const leanCalls = Symbol.for("@toolhost/client.leanCalls");

/**
 * LeanCalls are unary and server-streaming calls without Connect's request and response objects:
 * what createLeanClient uses for a call with no interceptors and no onHeader/onTrailer.
 */
export interface LeanCalls {
  unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    input: MessageInitShape<I>,
    options: CallOptions | undefined,
  ): Promise<MessageShape<O>>;
  serverStream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodServerStreaming<I, O>,
    input: MessageInitShape<I>,
    options: CallOptions | undefined,
  ): AsyncIterable<MessageShape<O>>;
}

/** HeadersFor builds a call's request headers from the caller's and its timeout. */
export type HeadersFor = (header: CallOptions["headers"], timeoutMs: number | undefined) => OutgoingHttpHeaders;

/**
 * makeLeanCalls makes the LeanCalls of a transport that opens calls with `open`. A call encodes its
 * request, opens its stream and sends HEADERS and DATA (with END_STREAM) in the caller's turn; a
 * unary call resolves from the stream's 'end' listener, a streamed one is iterated from its
 * 'data' listener (by the reader itself when the call started in the caller's turn). Signals and timeouts (also sent as grpc-timeout) behave as on the general path.
 */
export function makeLeanCalls(open: OpenCall, headersFor: HeadersFor): LeanCalls {
  return {
    unary(method, input, options) {
      const timeoutMs = deadline(options?.timeoutMs);
      const call = callSignal(options?.signal, timeoutMs);
      let body: Buffer;
      try {
        body = frameMessage(toBinary(method.input, create(method.input, input)));
      } catch (err) {
        return Promise.reject(call.error(err));
      }
      const codec = codecFor(method);
      const started = open(codec.path, headersFor(options?.headers, timeoutMs), call, codec.decode, true, body);
      return started instanceof GrpcResponseReader ? started.single() : started.then((reader) => reader.single());
    },

    serverStream(method, input, options) {
      const timeoutMs = deadline(options?.timeoutMs);
      const call = callSignal(options?.signal, timeoutMs);
      let body: Buffer;
      try {
        body = frameMessage(toBinary(method.input, create(method.input, input)));
      } catch (err) {
        return new StreamedResponse(Promise.reject(call.error(err)));
      }
      const codec = codecFor(method);
      const started = open(codec.path, headersFor(options?.headers, timeoutMs), call, codec.decode, false, body);
      // A call started in the caller's turn is iterated by its reader itself.
      return started instanceof GrpcResponseReader ? started : new StreamedResponse(started);
    },
  };
}

/** deadline is a call's timeout as Connect reads it: none when unset or not positive. */
export function deadline(timeoutMs: number | undefined): number | undefined {
  return timeoutMs !== undefined && timeoutMs <= 0 ? undefined : timeoutMs;
}
