import type {
  DescMessage,
  DescMethod,
  DescMethodServerStreaming,
  DescMethodStreaming,
  DescMethodUnary,
  DescService,
  MessageInitShape,
  MessageShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  makeAnyClient,
  type CallOptions,
  type Client,
  type StreamResponse,
  type Transport,
} from "@connectrpc/connect";
import { leanCalls, type LeanCalls } from "./lean-calls.js";

/**
 * createLeanClient is Connect's createClient for `service` on `transport`, the same methods and
 * options (signal, timeoutMs, headers, onHeader, onTrailer, contextValues), with streamed
 * responses iterated by plain iterator objects. Connect's wraps each streamed response in three
 * nested async generators (and the request in a fourth), a few promise hops per message that in
 * a fresh process cost ~0.2-0.4 ms of a small streamed read (bench/README.md, section mcp).
 * Leaving a for-await over a streamed response early (break, return, throw) cancels the call.
 *
 * On createHttp2GrpcTransport without interceptors, a unary or server-streaming call that asks
 * for neither onHeader nor onTrailer goes by the transport's LeanCalls: no Connect request or
 * response objects, the result handed over from the HTTP/2 stream's listeners.
 */
export function createLeanClient<S extends DescService>(service: S, transport: Transport): Client<S> {
  const lean = (transport as { [leanCalls]?: LeanCalls })[leanCalls];
  return makeAnyClient(service, (descMethod: DescMethod) => {
    const unary = descMethod as DescMethodUnary;
    const method = descMethod as DescMethodStreaming;
    switch (descMethod.methodKind) {
      case "unary":
        return (input: MessageInitShape<DescMessage>, options?: CallOptions) => {
          if (lean !== undefined && options?.onHeader === undefined && options?.onTrailer === undefined) {
            return lean.unary(unary, input, options);
          }
          return transport
            .unary(unary, options?.signal, options?.timeoutMs, options?.headers, input, options?.contextValues)
            .then((res) => {
              options?.onHeader?.(res.header);
              options?.onTrailer?.(res.trailer);
              return res.message;
            });
        };
      case "server_streaming":
        return (input: MessageInitShape<DescMessage>, options?: CallOptions) => {
          if (lean !== undefined && options?.onHeader === undefined && options?.onTrailer === undefined) {
            return lean.serverStream(method as DescMethodServerStreaming, input, options);
          }
          return streamed(
            () =>
              transport.stream(
                method,
                options?.signal,
                options?.timeoutMs,
                options?.headers,
                once(input),
                options?.contextValues,
              ),
            options,
          );
        };
      case "bidi_streaming":
        return (input: AsyncIterable<MessageInitShape<DescMessage>>, options?: CallOptions) =>
          streamed(
            () =>
              transport.stream(
                method,
                options?.signal,
                options?.timeoutMs,
                options?.headers,
                input,
                options?.contextValues,
              ),
            options,
          );
      case "client_streaming":
        return async (input: AsyncIterable<MessageInitShape<DescMessage>>, options?: CallOptions) => {
          const res = await transport.stream(
            method,
            options?.signal,
            options?.timeoutMs,
            options?.headers,
            input,
            options?.contextValues,
          );
          options?.onHeader?.(res.header);
          let single: MessageShape<DescMessage> | undefined;
          let count = 0;
          for await (const message of res.message) {
            single = message;
            count++;
          }
          if (single === undefined) {
            throw new ConnectError("protocol error: missing response message", Code.Unimplemented);
          }
          if (count > 1) {
            throw new ConnectError(
              "protocol error: received extra messages for client streaming method",
              Code.Unimplemented,
            );
          }
          options?.onTrailer?.(res.trailer);
          return single;
        };
      default:
        return null;
    }
  }) as Client<S>;
}

/** once is an async iterable of the one request message of a server-streaming call. */
function once<T>(message: T): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      let done = false;
      return {
        next: () => {
          if (done) return Promise.resolve({ done: true, value: undefined });
          done = true;
          return Promise.resolve({ done: false, value: message });
        },
      };
    },
  };
}

/**
 * streamed iterates a streamed response. The call starts at once, as Connect's does; a failure
 * surfaces at the first next() (and is not reported as unhandled if nobody iterates).
 */
function streamed<O extends DescMessage>(
  start: () => Promise<StreamResponse<DescMessage, O>>,
  options: CallOptions | undefined,
): AsyncIterable<MessageShape<O>> {
  const response = start();
  response.catch(() => {});
  return {
    [Symbol.asyncIterator]() {
      let res: StreamResponse<DescMessage, O> | undefined;
      let it: AsyncIterator<MessageShape<O>> | undefined;
      return {
        async next(): Promise<IteratorResult<MessageShape<O>>> {
          if (it === undefined) {
            res = await response;
            options?.onHeader?.(res.header);
            it = res.message[Symbol.asyncIterator]();
          }
          const r = await it.next();
          if (r.done) {
            options?.onTrailer?.(res!.trailer);
          }
          return r;
        },
        async return(): Promise<IteratorResult<MessageShape<O>>> {
          // break in a for-await: cancel the call rather than leave its stream open.
          if (it === undefined) {
            it = (await response.catch(() => undefined))?.message[Symbol.asyncIterator]();
          }
          await it?.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
