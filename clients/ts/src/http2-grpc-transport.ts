import type { ClientHttp2Stream, OutgoingHttpHeaders } from "node:http2";
import { fromBinary, toBinary, type DescMessage, type DescMethodStreaming, type DescMethodUnary, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues, type ContextValues, type Interceptor, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { createMethodUrl, runStreamingCall, runUnaryCall } from "@connectrpc/connect/protocol";
import { requestHeader } from "@connectrpc/connect/protocol-grpc";
import type { Http2SessionManager } from "@connectrpc/connect-node";
import { frameMessage } from "./grpc-envelope.js";
import { GrpcResponseReader } from "./grpc-response-reader.js";
import { connectErrorFromStream } from "./http2-stream-error.js";

/** Http2GrpcTransportOptions configure createHttp2GrpcTransport. */
export interface Http2GrpcTransportOptions {
  readonly baseUrl: string;
  /** The HTTP/2 connection (opened lazily, reopened after a GOAWAY or a failure). */
  readonly sessionManager: Http2SessionManager;
  readonly interceptors?: Interceptor[];
  /** The largest response message accepted; 4 GiB - 1 (connect-node's default) when unset. */
  readonly readMaxBytes?: number;
  /** Received messages queued past this many bytes pause the stream: 4 MiB when unset. */
  readonly highWaterBytes?: number;
}

/**
 * createHttp2GrpcTransport is a Connect Transport speaking the gRPC protocol (binary, no
 * compression) over node:http2, for createClient from @connectrpc/connect: interceptors, signals,
 * timeouts (also sent as grpc-timeout), headers, trailers and error details behave as with
 * connect-node's createGrpcTransport, whose header and status rules it reuses. Each call sends
 * its request headers and a single request message in one go (HEADERS, then DATA with
 * END_STREAM) and reads the response with stream listeners (GrpcResponseReader).
 */
export function createHttp2GrpcTransport(options: Http2GrpcTransportOptions): Transport {
  const interceptors = options.interceptors ?? [];
  const readerOptions = {
    maxMessageBytes: options.readMaxBytes ?? 0xffffffff,
    highWaterBytes: options.highWaterBytes ?? 4 * 1024 * 1024,
  };
  const sm = options.sessionManager;

  /** open starts the HTTP/2 stream of one call and attaches its response reader. */
  async function open(url: string, header: Headers, signal: AbortSignal): Promise<{ stream: ClientHttp2Stream; reader: GrpcResponseReader }> {
    const { pathname, search } = new URL(url);
    const stream = await sm.request("POST", pathname + search, nodeHeaders(header), {});
    const reader = new GrpcResponseReader(stream, signal, { ...readerOptions, onBytes: () => sm.notifyResponseByteRead(stream) });
    return { stream, reader };
  }

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: Parameters<Transport["unary"]>[3],
      message: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      return runUnaryCall<I, O>({
        interceptors,
        signal,
        timeoutMs,
        req: {
          stream: false,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(options.baseUrl, method),
          header: requestHeader(true, timeoutMs, header),
          contextValues: contextValues ?? createContextValues(),
          message,
        },
        next: async (req) => {
          const { stream, reader } = await open(req.url, req.header, req.signal);
          stream.end(frameMessage(toBinary(method.input, req.message)));
          let output: Uint8Array | undefined;
          for (let r = await reader.next(); !r.done; r = await reader.next()) {
            if (output !== undefined) {
              throw new ConnectError("protocol error: received extra output message for unary method", Code.Unimplemented);
            }
            output = r.value;
          }
          if (output === undefined) {
            throw new ConnectError("protocol error: missing output message for unary method", Code.Unimplemented);
          }
          return { stream: false, service: method.parent, method, header: reader.header, message: fromBinary(method.output, output), trailer: reader.trailer };
        },
      });
    },

    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: Parameters<Transport["unary"]>[3],
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      return runStreamingCall<I, O>({
        interceptors,
        signal,
        timeoutMs,
        req: {
          stream: true,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(options.baseUrl, method),
          header: requestHeader(true, timeoutMs, header),
          contextValues: contextValues ?? createContextValues(),
          message: input,
        },
        next: async (req) => {
          const { stream, reader } = await open(req.url, req.header, req.signal);
          if (method.methodKind === "server_streaming") {
            try {
              await sendSingle(stream, req.message, method.input);
            } catch (err) {
              reader.fail(connectErrorFromStream(err));
              throw err;
            }
          } else {
            sendAll(stream, req.message, method.input).catch((err) => reader.fail(connectErrorFromStream(err)));
          }
          await reader.headers;
          const messages: AsyncIterable<MessageShape<O>> = {
            [Symbol.asyncIterator]: () => ({
              next: async () => {
                const r = await reader.next();
                return r.done ? r : { done: false, value: fromBinary(method.output, r.value) };
              },
            }),
          };
          return { stream: true, service: method.parent, method, header: reader.header, message: messages, trailer: reader.trailer };
        },
      });
    },
  };
}

/** sendSingle sends the one request message of a server-streaming call and half-closes. */
async function sendSingle<I extends DescMessage>(stream: ClientHttp2Stream, input: AsyncIterable<MessageInitShape<I>>, schema: I): Promise<void> {
  const frames: Buffer[] = [];
  for await (const message of input) {
    frames.push(frameMessage(toBinary(schema, message as never)));
  }
  stream.end(frames.length === 1 ? frames[0] : Buffer.concat(frames));
}

/** sendAll writes the request messages of a client- or bidi-streaming call as they come, with back-pressure. */
async function sendAll<I extends DescMessage>(stream: ClientHttp2Stream, input: AsyncIterable<MessageInitShape<I>>, schema: I): Promise<void> {
  for await (const message of input) {
    if (stream.destroyed || stream.writableEnded) {
      return;
    }
    if (!stream.write(frameMessage(toBinary(schema, message as never)))) {
      await drainOrClose(stream);
    }
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

/** nodeHeaders turns Fetch Headers into node:http2 request headers. */
function nodeHeaders(header: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  header.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
