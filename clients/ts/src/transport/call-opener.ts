import type { ClientHttp2Stream, OutgoingHttpHeaders } from "node:http2";
import {
  fromBinary,
  type DescMessage,
  type DescMethodStreaming,
  type DescMethodUnary,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Http2SessionManager } from "@connectrpc/connect-node";
import type { CallSignal } from "./call-signal.js";
import { GrpcResponseReader, type ResponseReaderOptions } from "./grpc-response-reader.js";
import { connectErrorFromResetCode, connectErrorFromStream } from "./http2-stream-error.js";

/** MethodCodec is what a call needs of its method, worked out once per method: its HTTP path and response decoder. */
export interface MethodCodec<O extends DescMessage> {
  readonly path: string;
  readonly decode: (message: Uint8Array) => MessageShape<O>;
}

const codecs = new WeakMap<object, MethodCodec<DescMessage>>();

/** codecFor is the MethodCodec of `method`. */
export function codecFor<O extends DescMessage>(
  method: DescMethodUnary<DescMessage, O> | DescMethodStreaming<DescMessage, O>,
): MethodCodec<O> {
  let codec = codecs.get(method) as MethodCodec<O> | undefined;
  if (codec === undefined) {
    const output = method.output;
    codec = {
      path: `/${method.parent.typeName}/${method.name}`,
      decode: (message) => {
        try {
          return fromBinary(output, message);
        } catch (err) {
          // As Connect's own serialization reports it.
          throw new ConnectError(`parse binary: ${err instanceof Error ? err.message : String(err)}`, Code.Internal);
        }
      },
    };
    codecs.set(method, codec as MethodCodec<DescMessage>);
  }
  return codec;
}

/**
 * Writer sends a call's request on its stream (and reports a later failure to its reader), or is
 * the request's one framed message, sent with the half-close (no closure per call for that).
 */
export type Writer = ((stream: ClientHttp2Stream, reader: { fail(error: ConnectError): void }) => void) | Buffer;

/** OpenCall opens a call: its stream, the reader of its response, and its request sent by `write`. */
export type OpenCall = <T>(
  path: string,
  headers: OutgoingHttpHeaders,
  call: CallSignal,
  decode: (message: Uint8Array) => T,
  unary: boolean,
  write: Writer,
) => GrpcResponseReader<T> | Promise<GrpcResponseReader<T>>;

/** SessionManager is what a transport needs of connect-node's Http2SessionManager (or a WideWindowSessionManager). */
export type SessionManager = Pick<Http2SessionManager, "request" | "notifyResponseByteRead">;

/**
 * callOpener opens calls on `sm`'s connection: it waits for sm.request(), but no longer than the
 * call's signal (a deadline or an abort ends a call still waiting for its connection), then
 * attaches the response reader and writes the request.
 */
export function callOpener(sm: SessionManager, readerOptions: ResponseReaderOptions): OpenCall {
  return <T>(
    path: string,
    headers: OutgoingHttpHeaders,
    call: CallSignal,
    decode: (message: Uint8Array) => T,
    unary: boolean,
    write: Writer,
  ) => {
    if (call.signal.aborted) {
      // Aborted already, or a deadline too short to time: no stream, nothing for the server to do.
      return Promise.reject(call.error(call.signal.reason));
    }
    if (!call.cancellable) {
      return sm.request("POST", path, headers, {}).then(
        (s) => attach(s, call, readerOptions, decode, unary, write),
        (err: unknown) => {
          throw call.error(connectErrorFromStream(err));
        },
      );
    }
    return new Promise<GrpcResponseReader<T>>((resolve, reject) => {
      const signal = call.signal;
      const onAbort = () => reject(call.error(signal.reason));
      signal.addEventListener("abort", onAbort);
      sm.request("POST", path, headers, {}).then(
        (s) => {
          signal.removeEventListener("abort", onAbort);
          // A stream that came too late is given a reader all the same, which cancels it at once.
          resolve(attach(s, call, readerOptions, decode, unary, write));
        },
        (err: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(call.error(connectErrorFromStream(err)));
        },
      );
    });
  };
}

/** attach reads the response of a call's new stream and writes its request. */
function attach<T>(
  stream: ClientHttp2Stream,
  call: CallSignal,
  readerOptions: ResponseReaderOptions,
  decode: (message: Uint8Array) => T,
  unary: boolean,
  write: Writer,
): GrpcResponseReader<T> {
  const gone = stream.destroyed;
  const reader = new GrpcResponseReader(stream, call, readerOptions, decode, unary);
  if (gone) {
    // Closed before anyone listened (a connection lost between opening the stream and handing it
    // over): its 'close' has been and gone.
    reader.fail(
      connectErrorFromResetCode(stream.rstCode) ??
        new ConnectError("http/2 stream closed before the request was sent", Code.Unavailable),
    );
    return reader;
  }
  if (stream.closed) {
    return reader; // cancelled by the reader: the call's signal had aborted
  }
  try {
    if (write instanceof Uint8Array) {
      stream.end(write);
    } else {
      write(stream, reader);
    }
  } catch (err) {
    reader.fail(connectErrorFromStream(err));
  }
  return reader;
}
