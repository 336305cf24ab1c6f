import { constants, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import type { Server } from "@grpc/grpc-js";
import { GrpcFrameTracker } from "./grpc-frame-tracker.js";

/** StreamGuardOptions are the per-connection and per-process bounds the guard enforces. */
export interface StreamGuardOptions {
  /** Streams a connection may have open; the next one is refused alone (REFUSED_STREAM). */
  readonly maxStreamsPerConnection: number;
  /** Bytes of incomplete request messages held per connection before the stream is reset. */
  readonly maxReceiveBufferBytesPerConnection: number;
  /** The same, across every connection of the server. */
  readonly maxReceiveBufferBytes: number;
  /** How long a begun request message may take to arrive whole, in ms. */
  readonly receiveMessageTimeoutMs: number;
  /** Tells whether a method path takes exactly one request message (unary, server-streaming). */
  readonly singleRequest: (path: string) => boolean;
}

/** GuardCounters are the live counts of one connection (or of the whole server). */
interface GuardCounters {
  streams: number;
  receiveBytes: number;
}

const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL, NGHTTP2_ENHANCE_YOUR_CALM } = constants;
const invalidArgument = 3;

/**
 * guardStreams puts a guard in front of grpc-js on every HTTP/2 server of `server`. It sees each
 * stream before grpc-js does, and:
 *
 * - refuses a stream over the per-connection limit alone, with RST_STREAM REFUSED_STREAM (nghttp2
 *   treats a stream over SETTINGS_MAX_CONCURRENT_STREAMS as a connection error and resets every
 *   other stream of the connection, so the limit is enforced here instead, see grpc-server.ts);
 * - resets a stream whose request message has begun but not arrived whole within the receive
 *   timeout (for a single-request method: until the half-close), with CANCEL;
 * - resets a stream with ENHANCE_YOUR_CALM (RESOURCE_EXHAUSTED to gRPC clients) when the
 *   incomplete messages of its connection, or of the server, would pass their byte bound;
 * - answers INVALID_ARGUMENT itself when a stream half-closes inside a message (grpc-js would drop
 *   the partial message and report a clean end, and an upload would be committed), or when a
 *   single-request method half-closes without any message.
 *
 * grpc-js has no hook before its own 'stream' handler, so the guard wraps the server's emit; it is
 * hand-written because no library does this for grpc-js. Returns false if grpc-js's private map of
 * HTTP/2 servers is missing, so a test can tell the guard is not in place.
 */
export function guardStreams(server: Server, options: StreamGuardOptions): boolean {
  const servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  if (!(servers instanceof Map)) {
    return false;
  }
  const total: GuardCounters = { streams: 0, receiveBytes: 0 };
  const sessions = new WeakMap<ServerHttp2Session, GuardCounters>();
  for (const http2Server of servers.keys()) {
    const emit = http2Server.emit.bind(http2Server) as (event: string | symbol, ...args: unknown[]) => boolean;
    http2Server.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
      if (event !== "stream") {
        return emit(event, ...args);
      }
      const stream = args[0] as ServerHttp2Stream;
      const session = stream.session as ServerHttp2Session | undefined;
      if (session === undefined) {
        return emit(event, ...args);
      }
      let counters = sessions.get(session);
      if (counters === undefined) {
        counters = { streams: 0, receiveBytes: 0 };
        sessions.set(session, counters);
      }
      // A reset with a code other than CANCEL is reported as an 'error' on the stream itself.
      stream.on("error", () => undefined);
      if (counters.streams >= options.maxStreamsPerConnection) {
        stream.close(NGHTTP2_REFUSED_STREAM);
        return true;
      }
      watchStream(stream, args[1] as IncomingHttpHeaders, counters, total, options);
      return emit(event, ...args);
    }) as typeof http2Server.emit;
  }
  return true;
}

function watchStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, session: GuardCounters, total: GuardCounters, options: StreamGuardOptions): void {
  const single = options.singleRequest(String(headers[":path"] ?? ""));
  const tracker = new GrpcFrameTracker();
  let charged = 0;
  let received = 0;
  let ended = false;
  session.streams += 1;
  total.streams += 1;
  const charge = (bytes: number) => {
    session.receiveBytes += bytes - charged;
    total.receiveBytes += bytes - charged;
    charged = bytes;
  };
  // A fresh timer each time: a cleared Node timer cannot be re-armed with refresh().
  let timer: NodeJS.Timeout | undefined;
  const disarm = () => clearTimeout(timer);
  const arm = () => {
    disarm();
    timer = setTimeout(() => {
      if (!stream.closed) {
        stream.close(NGHTTP2_CANCEL);
      }
    }, options.receiveMessageTimeoutMs);
    timer.unref();
  };
  arm();
  stream.once("close", () => {
    disarm();
    charge(0);
    session.streams -= 1;
    total.streams -= 1;
  });
  stream.on("data", (data: Buffer) => {
    if (stream.closed) {
      return;
    }
    received += data.length;
    const wasInMessage = tracker.inMessage;
    const completed = tracker.push(data);
    charge(single ? received : tracker.partialBytes);
    if (session.receiveBytes > options.maxReceiveBufferBytesPerConnection || total.receiveBytes > options.maxReceiveBufferBytes) {
      charge(0);
      stream.close(NGHTTP2_ENHANCE_YOUR_CALM);
      return;
    }
    if (!single) {
      // A streaming request is timed per message: from its first byte until it is whole (the
      // first message: from the stream's start). Between messages the stream may wait as long
      // as it likes; it holds no message bytes then.
      if (completed > 0) {
        if (tracker.inMessage) {
          arm();
        } else {
          disarm();
        }
      } else if (!wasInMessage && tracker.inMessage && tracker.messages > 0) {
        arm();
      }
    }
  });
  const emit = stream.emit.bind(stream) as (event: string | symbol, ...args: unknown[]) => boolean;
  stream.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== "end" || ended) {
      return emit(event, ...args);
    }
    ended = true;
    disarm();
    charge(0);
    if (tracker.inMessage) {
      refuse(stream, `The request stream ended inside a message: ${tracker.partialBytes} bytes of its last message arrived, not all of it; nothing was committed. Send whole messages and half-close after the last one.`);
      return false;
    }
    if (single && tracker.messages === 0) {
      refuse(stream, "The request message is missing: the stream half-closed before sending one. Send exactly one request message.");
      return false;
    }
    return emit(event, ...args);
  }) as typeof stream.emit;
}

/** refuse ends a stream with INVALID_ARGUMENT, as trailers after grpc-js's headers or trailers-only. */
function refuse(stream: ServerHttp2Stream, message: string): void {
  if (stream.closed || stream.destroyed) {
    return;
  }
  const status = { "grpc-status": String(invalidArgument), "grpc-message": encodeURI(message) };
  if (!stream.headersSent) {
    stream.respond({ ":status": 200, "content-type": "application/grpc+proto", ...status }, { endStream: true });
    return;
  }
  // grpc-js sent its headers with waitForTrailers, so ending the stream asks for the trailers.
  stream.once("wantTrailers", () => stream.sendTrailers(status));
  stream.end();
}
