import {
  connect,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
} from "node:http2";
import { once } from "node:events";
import { h2Frame } from "./raw-h2-peer.js";

/**
 * RawResult is what a raw gRPC stream ended with: its gRPC status (from trailers or a
 * trailers-only response), the RST_STREAM code when the server reset it, and the messages it sent.
 */
export interface RawResult {
  readonly grpcStatus: number | undefined;
  readonly grpcMessage: string | undefined;
  readonly rstCode: number;
  readonly messages: Buffer[];
  readonly trailers: IncomingHttpHeaders;
}

/** frame prefixes one gRPC message with its 5-byte length prefix (uncompressed). */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.byteLength);
  out[0] = 0;
  out.writeUInt32BE(message.byteLength, 1);
  out.set(message, 5);
  return out;
}

/**
 * RawGrpcConnection is one HTTP/2 connection to a gRPC server driven by hand with node:http2, for
 * tests that send what no generated client would: partial frames, missing messages, more streams
 * than the server allows, streams that are never read.
 */
export class RawGrpcConnection {
  private constructor(readonly session: ClientHttp2Session) {}

  /** open connects to host:port and waits for the server's SETTINGS. */
  static async open(address: string, settings: { initialWindowSize?: number } = {}): Promise<RawGrpcConnection> {
    // A large session memory, so that this client does not reset its own streams (Node allows 10 MB).
    const session = connect(`http://${address}`, { settings, maxSessionMemory: 4096 });
    session.on("error", () => undefined);
    await once(session, "remoteSettings");
    return new RawGrpcConnection(session);
  }

  /** closed tells whether the server ended the connection (GOAWAY or socket close). */
  get closed(): boolean {
    return this.session.closed || this.session.destroyed;
  }

  /**
   * start opens a stream to the gRPC method path ("/pkg.Service/Method") without sending data.
   * `paused` streams are not read: their DATA stays in the receive window, as for a stalled client.
   */
  start(path: string, options: { paused?: boolean; headers?: Record<string, string> } = {}): ClientHttp2Stream {
    const stream = this.session.request(
      { ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...options.headers },
      { endStream: false },
    );
    stream.on("error", () => undefined);
    if (options.paused) {
      stream.pause();
    }
    return stream;
  }

  /**
   * call sends `body` (raw bytes: framed messages, or a truncated frame) on a new stream, ends it,
   * and resolves with what the server answered, within timeoutMs.
   */
  async call(path: string, body: Uint8Array, timeoutMs = 10_000): Promise<RawResult> {
    const stream = this.start(path);
    stream.end(Buffer.from(body));
    return collect(stream, timeoutMs);
  }

  close(): void {
    this.session.destroy();
  }
}

/** collect reads a stream to its end and returns its status, reset code and messages. */
export async function collect(stream: ClientHttp2Stream, timeoutMs = 10_000): Promise<RawResult> {
  let headers: IncomingHttpHeaders = {};
  let trailers: IncomingHttpHeaders = {};
  const chunks: Buffer[] = [];
  stream.on("response", (h) => (headers = h));
  stream.on("trailers", (t) => (trailers = t));
  stream.on("data", (d: Buffer) => chunks.push(d));
  stream.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`raw gRPC stream did not end within ${timeoutMs} ms`)), timeoutMs);
    stream.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const status = trailers["grpc-status"] ?? headers["grpc-status"];
  const message = trailers["grpc-message"] ?? headers["grpc-message"];
  return {
    grpcStatus: status === undefined ? undefined : Number(status),
    grpcMessage: message === undefined ? undefined : decodeURIComponent(String(message)),
    rstCode: stream.rstCode ?? constants.NGHTTP2_NO_ERROR,
    messages: unframe(Buffer.concat(chunks)),
    trailers: { ...headers, ...trailers },
  };
}

/** unframe splits gRPC length-prefixed messages (a trailing partial one is dropped). */
export function unframe(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 5 <= bytes.length) {
    const length = bytes.readUInt32BE(at + 1);
    if (at + 5 + length > bytes.length) {
      break;
    }
    out.push(bytes.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return out;
}

/** H2Frame is one HTTP/2 frame as read off the wire by RawH2Socket. */
export interface H2Frame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

/** h2 frame types and flags RawH2Socket uses. */
export const h2 = {
  DATA: 0,
  HEADERS: 1,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
  END_STREAM: 1,
  ACK: 1,
  END_HEADERS: 4,
} as const;

/**
 * RawH2Socket speaks HTTP/2 frame by frame over a plain TCP socket, for what node:http2 will not
 * send: more streams than the server's SETTINGS_MAX_CONCURRENT_STREAMS (node:http2 queues them).
 * Headers are HPACK literals without indexing, which every decoder accepts.
 */
export class RawH2Socket {
  readonly frames: H2Frame[] = [];
  private buffered = Buffer.alloc(0);
  private nextStreamId = 1;

  private constructor(private readonly socket: import("node:net").Socket) {
    socket.on("data", (data: Buffer) => this.receive(data));
    socket.on("error", () => undefined);
  }

  /** open connects, sends the preface and empty SETTINGS, and acknowledges the server's SETTINGS. */
  static async open(address: string): Promise<RawH2Socket> {
    const { connect: connectTcp } = await import("node:net");
    const at = address.lastIndexOf(":");
    const socket = connectTcp(Number(address.slice(at + 1)), address.slice(0, at));
    await once(socket, "connect");
    const raw = new RawH2Socket(socket);
    socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    raw.send(h2.SETTINGS, 0, 0, Buffer.alloc(0));
    // A large connection window so that the server's replies are not held back by it.
    const increment = Buffer.alloc(4);
    increment.writeUInt32BE(1 << 30);
    raw.send(h2.WINDOW_UPDATE, 0, 0, increment);
    await raw.waitFor((f) => f.type === h2.SETTINGS && (f.flags & h2.ACK) === 0, 5000);
    raw.send(h2.SETTINGS, h2.ACK, 0, Buffer.alloc(0));
    return raw;
  }

  /** closed tells whether the server closed the TCP connection. */
  get closed(): boolean {
    return this.socket.destroyed || this.socket.readableEnded;
  }

  /** request opens a stream with a gRPC POST to path (with further `headers`) and returns its id. */
  request(path: string, options: { endStream?: boolean; headers?: Record<string, string> } = {}): number {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const block = Buffer.concat(
      Object.entries({
        ":method": "POST",
        ":scheme": "http",
        ":path": path,
        ":authority": "localhost",
        "content-type": "application/grpc",
        te: "trailers",
        ...options.headers,
      }).map(([name, value]) => Buffer.concat([Buffer.from([0]), hpackString(name), hpackString(value)])),
    );
    this.send(h2.HEADERS, h2.END_HEADERS | (options.endStream ? h2.END_STREAM : 0), id, block);
    return id;
  }

  /** data sends one DATA frame (at most 16 KiB) on a stream. */
  data(streamId: number, payload: Buffer, endStream = false): void {
    this.send(h2.DATA, endStream ? h2.END_STREAM : 0, streamId, payload);
  }

  /** reset sends RST_STREAM with an HTTP/2 error code on a stream (no END_STREAM before it). */
  reset(streamId: number, code: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(code);
    this.send(h2.RST_STREAM, 0, streamId, payload);
  }

  /** waitFor resolves with the first frame (seen so far or later) that matches, or rejects after timeoutMs. */
  async waitFor(match: (f: H2Frame) => boolean, timeoutMs: number): Promise<H2Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found !== undefined) {
        return found;
      }
      if (Date.now() > deadline || this.socket.destroyed) {
        throw new Error(`no matching HTTP/2 frame within ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private send(type: number, flags: number, streamId: number, payload: Buffer): void {
    this.socket.write(h2Frame(type, flags, streamId, payload));
  }

  private receive(data: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, data]);
    while (this.buffered.length >= 9) {
      const length = this.buffered.readUIntBE(0, 3);
      if (this.buffered.length < 9 + length) {
        return;
      }
      const f: H2Frame = {
        type: this.buffered[3]!,
        flags: this.buffered[4]!,
        streamId: this.buffered.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(this.buffered.subarray(9, 9 + length)),
      };
      this.buffered = this.buffered.subarray(9 + length);
      if (f.type === h2.PING && (f.flags & h2.ACK) === 0) {
        this.send(h2.PING, h2.ACK, 0, f.payload);
      }
      this.frames.push(f);
    }
  }
}

function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text);
  if (bytes.length < 127) {
    return Buffer.concat([Buffer.from([bytes.length]), bytes]);
  }
  const prefix: number[] = [127];
  let rest = bytes.length - 127;
  while (rest >= 128) {
    prefix.push((rest & 0x7f) | 0x80);
    rest >>= 7;
  }
  prefix.push(rest);
  return Buffer.concat([Buffer.from(prefix), bytes]);
}
