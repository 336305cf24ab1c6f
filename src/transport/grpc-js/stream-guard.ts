import {
  constants,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import { EventEmitter } from "node:events";
import { IndexedList } from "../indexed-list.js";
import { GrpcFrameTracker } from "../grpc/grpc-frame-tracker.js";
import { checkRequestHead } from "../grpc/request-head-check.js";
import { refuse, refuseHead } from "../grpc/refuse-stream.js";
import type { StreamGuardOptions } from "../grpc/stream-guard-options.js";

/** GuardCounters are the live counts of one connection (or of the whole server). */
interface GuardCounters {
  streams: number;
  receiveBytes: number;
}

const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL, NGHTTP2_ENHANCE_YOUR_CALM } = constants;
const invalidArgument = 3;
const internal = 13;

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
 *   single-request method half-closes without any message;
 * - refuses, before grpc-js sees it, a stream whose headers are not a gRPC call this server reads
 *   (request-head-check.ts: not a POST, another codec, an unknown grpc-encoding);
 * - answers INTERNAL when a message is flagged compressed on a call that declares no encoding
 *   (grpc-js would read it as plain), without passing that message on.
 *
 * grpc-js has no hook before its own 'stream' handler, so the guard wraps the server's emit; it is
 * hand-written because no library does this for grpc-js. `servers` are grpc-js's HTTP/2 servers
 * (http2ServersOf); start-up refuses to run without them (grpc-server.ts).
 */
export function guardStreams(servers: readonly Http2Server[], options: StreamGuardOptions): void {
  const guard = new StreamGuard(options);
  for (const http2Server of servers) {
    const emit = http2Server.emit;
    // `arguments` passed on as they came: no array is made for the server's other events.
    http2Server.emit = function (this: Http2Server, event: string | symbol): boolean {
      if (event === "stream" && !guard.admit(arguments[1] as ServerHttp2Stream, arguments[2] as IncomingHttpHeaders)) {
        return true;
      }
      return emit.apply(this, arguments as unknown as [string]) as boolean;
    } as typeof http2Server.emit;
  }
}

/**
 * StreamGuard holds the counters of every connection and of the server, and one StreamWatch per
 * live stream. Streams are timed by one sweep (every quarter of the receive timeout, at most
 * 1 s, at least 10 ms) over the watches armed, not by a timer each: a stream's timeout then
 * fires up to a quarter late, and a short unary call costs no timer at all.
 *
 * The watches armed are kept in an IndexedList (indexed-list.ts), not a Set. Measured (--trace-gc-nvp, ghz ListTools, 16 calls at a time): with
 * a Set that the sweep iterates, or with the watches in a WeakMap keyed by stream, every call's
 * objects (stream, grpc-js call, watch) survived V8's young-generation collections and were
 * copied into the old generation, 2.1-2.5 MB per scavenge; with neither, 40 KB, as a bare
 * grpc-js server. Without the sweep's iteration the Set kept nothing, so its tables, rehashed
 * under iteration, are the likely holder; an array has no such tables.
 */
class StreamGuard {
  readonly total: GuardCounters = { streams: 0, receiveBytes: 0 };
  readonly #sessions = new WeakMap<ServerHttp2Session, GuardCounters>();
  readonly armed = new IndexedList<StreamWatch>();
  readonly #sweepMs: number;
  #sweep: NodeJS.Timeout | undefined;

  constructor(readonly options: StreamGuardOptions) {
    this.#sweepMs = Math.max(10, Math.min(1000, Math.floor(options.receiveMessageTimeoutMs / 4)));
  }

  /** admit watches a new stream for grpc-js; false when it was refused (over the connection's stream limit). */
  admit(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): boolean {
    const session = stream.session as ServerHttp2Session | undefined;
    if (session === undefined) {
      return true;
    }
    let counters = this.#sessions.get(session);
    if (counters === undefined) {
      counters = { streams: 0, receiveBytes: 0 };
      this.#sessions.set(session, counters);
    }
    // A reset with a code other than CANCEL is reported as an 'error' on the stream itself.
    stream.on("error", ignore);
    if (counters.streams >= this.options.maxStreamsPerConnection) {
      stream.close(NGHTTP2_REFUSED_STREAM);
      return false;
    }
    const head = checkRequestHead(headers);
    if ("httpStatus" in head) {
      refuseHead(stream, head);
      return false;
    }
    const watch = new StreamWatch(
      this,
      stream,
      counters,
      this.options.singleRequest(String(headers[":path"] ?? "")),
      head.compressed,
    );
    (stream as WatchedStream)[watchKey] = watch;
    stream.once("close", onClose);
    // DATA is tracked in guardedEmit, before any listener sees it; this listener only keeps the
    // stream flowing (drained) when grpc-js does not read it, as for a method it does not serve.
    stream.on("data", ignore);
    stream.emit = guardedEmit;
    return true;
  }

  /** arm (re)starts a watch's receive timeout. */
  arm(watch: StreamWatch): void {
    watch.deadline = performance.now() + this.options.receiveMessageTimeoutMs;
    this.armed.add(watch);
    if (this.#sweep === undefined) {
      this.#sweep = setInterval(() => this.#sweepArmed(), this.#sweepMs);
      this.#sweep.unref();
    }
  }

  disarm(watch: StreamWatch): void {
    this.armed.remove(watch);
  }

  #sweepArmed(): void {
    const now = performance.now();
    // Backwards: a watch disarmed here is replaced by the last one, already looked at. close()
    // runs listeners and native callbacks synchronously; should they disarm other watches, the
    // array shrinks under the loop, so the next index is clamped to its length (a watch moved
    // below it is then looked at, at worst twice).
    for (let i = this.armed.length - 1; i >= 0; i = Math.min(i, this.armed.length) - 1) {
      const watch = this.armed.at(i);
      if (watch.deadline <= now) {
        this.disarm(watch);
        if (!watch.stream.closed) {
          watch.stream.close(NGHTTP2_CANCEL);
        }
      }
    }
    if (this.armed.length === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }
}

/** StreamWatch is the guard's state for one stream. */
class StreamWatch {
  readonly tracker = new GrpcFrameTracker();
  charged = 0;
  received = 0;
  ended = false;
  /** Set once the guard answered the stream itself: nothing more of it reaches grpc-js. */
  refused = false;
  deadline = 0;
  /** Its index in the guard's armed watches, -1 when not armed. */
  listIndex = -1;

  constructor(
    readonly guard: StreamGuard,
    readonly stream: ServerHttp2Stream,
    readonly session: GuardCounters,
    readonly single: boolean,
    /** The call declares a grpc-encoding that messages flagged compressed are in. */
    readonly compressed: boolean,
  ) {
    session.streams += 1;
    guard.total.streams += 1;
    guard.arm(this);
  }

  /** charge sets the bytes this stream holds of its connection's and the server's budgets. */
  charge(bytes: number): void {
    this.session.receiveBytes += bytes - this.charged;
    this.guard.total.receiveBytes += bytes - this.charged;
    this.charged = bytes;
  }
}

/**
 * watchKey holds each guarded stream's watch on the stream itself, for the shared listeners
 * below: a WeakMap from streams to watches kept every call alive through young-generation
 * collections too (see StreamGuard).
 */
const watchKey = Symbol("toolhost.streamWatch");

/** WatchedStream is a guarded stream, its watch on it. */
type WatchedStream = ServerHttp2Stream & { [watchKey]?: StreamWatch };
/** streamEmit is the emit every ServerHttp2Stream inherits (EventEmitter's; Readable keeps it). */
const streamEmit = EventEmitter.prototype.emit;

function ignore(): void {}

function onClose(this: ServerHttp2Stream): void {
  const watch = (this as WatchedStream)[watchKey];
  if (watch === undefined) return;
  watch.guard.disarm(watch);
  watch.charge(0);
  watch.session.streams -= 1;
  watch.guard.total.streams -= 1;
  watch.guard.options.onStreamClosed?.();
}

/**
 * guardedEmit replaces a guarded stream's emit: DATA passes the frame tracker before any listener
 * sees it (passData), and an 'end' inside a message, or before the one message a
 * single-request method needs, is held back and answered INVALID_ARGUMENT (passEnd: grpc-js would
 * report a clean end). Every other event passes as is.
 */
function guardedEmit(this: ServerHttp2Stream, event: string | symbol): boolean {
  if (event === "data" || event === "end") {
    const watch = (this as WatchedStream)[watchKey];
    if (
      watch !== undefined &&
      !(event === "data" ? passData(this, watch, arguments[1] as Buffer) : passEnd(this, watch))
    ) {
      return false;
    }
  }
  return streamEmit.apply(this, arguments as unknown as [string]) as boolean;
}

/** passData accounts for one chunk of DATA; false when it must not reach grpc-js. */
function passData(stream: ServerHttp2Stream, watch: StreamWatch, data: Buffer): boolean {
  if (watch.refused) {
    return false;
  }
  if (stream.closed) {
    return true;
  }
  const { tracker, guard, single } = watch;
  const options = guard.options;
  watch.received += data.length;
  const wasInMessage = tracker.inMessage;
  const completed = tracker.push(data);
  watch.charge(single ? watch.received : tracker.partialBytes);
  if (
    watch.session.receiveBytes > options.maxReceiveBufferBytesPerConnection ||
    guard.total.receiveBytes > options.maxReceiveBufferBytes
  ) {
    watch.charge(0);
    stream.close(NGHTTP2_ENHANCE_YOUR_CALM);
    return false;
  }
  if (tracker.flags !== 0 && (tracker.flags > 1 || !watch.compressed)) {
    refuseStream(
      stream,
      watch,
      tracker.flags > 1
        ? `A request message has reserved flag bits set (flags ${tracker.flags}): only bit 0, compressed, is defined. Send messages with flag 0 or 1.`
        : "A request message is flagged compressed, but the call declares no grpc-encoding: nothing of it was read. Send it uncompressed with flag 0, or name its encoding in grpc-encoding.",
    );
    return false;
  }
  if (!single) {
    // A streaming request is timed per message: from its first byte until it is whole (the
    // first message: from the stream's start). Between messages the stream may wait as long
    // as it likes; it holds no message bytes then.
    if (completed > 0) {
      if (tracker.inMessage) {
        guard.arm(watch);
      } else {
        guard.disarm(watch);
      }
    } else if (!wasInMessage && tracker.inMessage && tracker.messages > 0) {
      guard.arm(watch);
    }
  }
  return true;
}

/** passEnd checks the half-close of a stream; false when the guard answered it instead. */
function passEnd(stream: ServerHttp2Stream, watch: StreamWatch): boolean {
  if (watch.refused) {
    return false;
  }
  if (watch.ended) {
    return true;
  }
  watch.ended = true;
  watch.guard.disarm(watch);
  watch.charge(0);
  if (watch.tracker.inMessage) {
    refuse(
      stream,
      invalidArgument,
      `The request stream ended inside a message: ${watch.tracker.partialBytes} bytes of its last message arrived, not all of it; nothing was committed. Send whole messages and half-close after the last one.`,
    );
    return false;
  }
  if (watch.single && watch.tracker.messages === 0) {
    refuse(
      stream,
      invalidArgument,
      "The request message is missing: the stream half-closed before sending one. Send exactly one request message.",
    );
    return false;
  }
  return true;
}

/**
 * refuseStream answers a stream INTERNAL in the middle of its request: none of its DATA or its
 * end reaches grpc-js any more, and a trailers-only answer is followed by RST_STREAM NO_ERROR,
 * which asks the client to stop sending (RFC 9113 8.1).
 */
function refuseStream(stream: ServerHttp2Stream, watch: StreamWatch, message: string): void {
  watch.refused = true;
  watch.ended = true;
  watch.guard.disarm(watch);
  watch.charge(0);
  refuse(stream, internal, message, true);
}
