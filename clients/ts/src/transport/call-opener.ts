import type { ClientHttp2Stream, OutgoingHttpHeaders } from "node:http2";
import type { CallStream } from "./call-stream.js";
import type { Http2Connector } from "./h2/http2-connector.js";
import { fromBinary, type DescMessage, type DescMethodStreaming, type DescMethodUnary, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Http2SessionManager } from "@connectrpc/connect-node";
import type { CallSignal } from "./call-signal.js";
import { GrpcResponseReader, type ResponseReaderOptions } from "./grpc-response-reader.js";
import { connectErrorFromResetCode, connectErrorFromStream } from "./http2-stream-error.js";
import { WideWindowSessionManager } from "./window-session-manager.js";

/** MethodCodec is what a call needs of its method, worked out once per method: its HTTP path and response decoder. */
export interface MethodCodec<O extends DescMessage> {
  readonly path: string;
  readonly decode: (message: Uint8Array) => MessageShape<O>;
}

const codecs = new WeakMap<object, MethodCodec<DescMessage>>();

/** codecFor is the MethodCodec of `method`. */
export function codecFor<O extends DescMessage>(method: DescMethodUnary<DescMessage, O> | DescMethodStreaming<DescMessage, O>): MethodCodec<O> {
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
export type Writer = ((stream: CallStream, reader: { fail(error: ConnectError): void }) => void) | Buffer;

/** OpenCall opens a call: its stream, the reader of its response, and its request sent by `write`. */
export type OpenCall = <T>(
  path: string,
  headers: OutgoingHttpHeaders,
  call: CallSignal,
  decode: (message: Uint8Array) => T,
  unary: boolean,
  write: Writer,
) => GrpcResponseReader<T> | Promise<GrpcResponseReader<T>>;

/**
 * callOpener opens calls on `sm`'s connection. When the connection is up it opens the stream,
 * attaches the reader and writes the request in the caller's turn, so a small call's HEADERS and
 * DATA leave in one write and the reader is returned, not a promise of it; otherwise (first call,
 * reconnect, a session manager of the caller's own) it waits for sm.request(), but no longer than
 * the call's signal: a deadline or an abort ends a call still waiting for its connection (the
 * session manager itself waits for a connection as long as the OS lets it).
 */
export function callOpener(sm: Http2SessionManager, readerOptions: ResponseReaderOptions): OpenCall {
  const now = sm instanceof WideWindowSessionManager ? sm : undefined;
  return <T>(path: string, headers: OutgoingHttpHeaders, call: CallSignal, decode: (message: Uint8Array) => T, unary: boolean, write: Writer) => {
    if (call.signal.aborted) {
      // Aborted already, or a deadline too short to time: no stream, nothing for the server to do.
      return Promise.reject(call.error(call.signal.reason));
    }
    let stream: ClientHttp2Stream | undefined;
    try {
      stream = now?.requestNow(path, headers);
    } catch (err) {
      return Promise.reject(call.error(connectErrorFromStream(err)));
    }
    if (stream !== undefined) {
      return attach(stream, call, readerOptions, decode, unary, write);
    }
    if (!call.cancellable) {
      return sm.request("POST", path, headers, {}).then(
        (s) => attach(s, call, readerOptions, decode, unary, write),
        (err: unknown) => {
          throw call.error(err);
        },
      );
    }
    return new Promise<GrpcResponseReader<T>>((resolve, reject) => {
      const signal = call.signal;
      const onAbort = () => reject(call.error(signal.reason));
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort);
      sm.request("POST", path, headers, {}).then(
        (s) => {
          signal.removeEventListener("abort", onAbort);
          // A stream that came too late is given a reader all the same, which cancels it at once.
          resolve(attach(s, call, readerOptions, decode, unary, write));
        },
        (err: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(call.error(err));
        },
      );
    });
  };
}

/**
 * connectorCallOpener opens calls on the client's own HTTP/2 connection (Http2Connector): the
 * stream is opened, its reader attached and its request written in the caller's turn, whether
 * the connection is up or still being made (the frames wait in the socket), so every call takes
 * the same path and a deadline or an abort ends it wherever it is.
 */
export function connectorCallOpener(connector: Http2Connector, readerOptions: ResponseReaderOptions): OpenCall {
  return <T>(path: string, headers: OutgoingHttpHeaders, call: CallSignal, decode: (message: Uint8Array) => T, unary: boolean, write: Writer) => {
    if (call.signal.aborted) {
      // Aborted already, or a deadline too short to time: no stream, nothing for the server to do.
      return Promise.reject(call.error(call.signal.reason));
    }
    let stream: CallStream;
    try {
      stream = connector.open(path, headers);
    } catch (err) {
      return Promise.reject(call.error(connectErrorFromStream(err)));
    }
    return attach(stream, call, readerOptions, decode, unary, write);
  };
}

/** attach reads the response of a call's new stream and writes its request. */
function attach<T>(stream: CallStream, call: CallSignal, readerOptions: ResponseReaderOptions, decode: (message: Uint8Array) => T, unary: boolean, write: Writer): GrpcResponseReader<T> {
  const gone = stream.destroyed;
  const reader = new GrpcResponseReader(stream, call, readerOptions, decode, unary);
  if (gone) {
    // Closed before anyone listened (a session manager of the caller's own, a connection lost
    // between opening the stream and handing it over): its 'close' has been and gone.
    reader.fail(connectErrorFromResetCode(stream.rstCode) ?? new ConnectError("http/2 stream closed before the request was sent", Code.Unavailable));
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
