import { EventEmitter } from "node:events";
import { createServer, type Server, type Socket } from "node:net";

/**
 * HTTP/2 frame types, flags, error codes and settings (RFC 9113, sections 6, 7 and 6.5.2), written
 * out here rather than taken from the client under test, so that the peer is not built from the
 * code it tests.
 */
export const h2 = {
  type: {
    data: 0x0,
    headers: 0x1,
    rstStream: 0x3,
    settings: 0x4,
    pushPromise: 0x5,
    ping: 0x6,
    goaway: 0x7,
    windowUpdate: 0x8,
    continuation: 0x9,
  },
  flag: { endStream: 0x1, ack: 0x1, endHeaders: 0x4, padded: 0x8 },
  error: {
    noError: 0x0,
    protocolError: 0x1,
    flowControlError: 0x3,
    frameSizeError: 0x6,
    refusedStream: 0x7,
    cancel: 0x8,
    compressionError: 0x9,
    enhanceYourCalm: 0xb,
  },
  setting: { maxConcurrentStreams: 0x3, initialWindowSize: 0x4 },
} as const;

const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** RawFrame is one HTTP/2 frame as it came off the wire. */
export interface RawFrame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

/** h2Frame builds one frame: the 9-byte header (RFC 9113, section 4.1) and `payload`. */
export function h2Frame(type: number, flags: number, streamId: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(9 + payload.byteLength);
  out.writeUIntBE(payload.byteLength, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  out.set(payload, 9);
  return out;
}

/** settings is a SETTINGS frame with `values` (id, value pairs). */
export function settings(values: ReadonlyArray<readonly [number, number]> = []): Buffer {
  const payload = Buffer.alloc(6 * values.length);
  values.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return h2Frame(h2.type.settings, 0, 0, payload);
}

/** u32Frame is a frame whose payload is 32-bit big-endian words (RST_STREAM, WINDOW_UPDATE, GOAWAY). */
export function u32Frame(type: number, streamId: number, ...words: number[]): Buffer {
  const payload = Buffer.alloc(4 * words.length);
  words.forEach((w, i) => payload.writeUInt32BE(w, 4 * i));
  return h2Frame(type, 0, streamId, payload);
}

/** hpackInteger writes an HPACK integer with an N-bit prefix (RFC 7541, section 5.1). */
function hpackInteger(value: number, prefixBits: number, flags: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const out = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

/**
 * headerBlock HPACK-encodes `fields` by hand, each as a "literal header field without indexing,
 * new name" with raw (not Huffman) strings (RFC 7541, section 6.2.2): the simplest valid block,
 * and independent of the client's HPACK code.
 */
export function headerBlock(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  const bytes: number[] = [];
  for (const [name, value] of fields) {
    bytes.push(0x00);
    for (const s of [name, value]) {
      const raw = Buffer.from(s, "latin1");
      bytes.push(...hpackInteger(raw.byteLength, 7, 0x00), ...raw);
    }
  }
  return Buffer.from(bytes);
}

/** grpcMessage prefixes `message` with gRPC's 5-byte length prefix (uncompressed). */
export function grpcMessage(message: Uint8Array = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(5 + message.byteLength);
  out.writeUInt32BE(message.byteLength, 1);
  out.set(message, 5);
  return out;
}

/** responseHeaders is the HEADERS frame of a plain gRPC response on `streamId`. */
export function responseHeaders(streamId: number): Buffer {
  return h2Frame(
    h2.type.headers,
    h2.flag.endHeaders,
    streamId,
    headerBlock([
      [":status", "200"],
      ["content-type", "application/grpc"],
    ]),
  );
}

/** trailers is the trailing HEADERS frame (END_STREAM) of a gRPC response with `status`. */
export function trailers(streamId: number, status = 0): Buffer {
  return h2Frame(
    h2.type.headers,
    h2.flag.endHeaders | h2.flag.endStream,
    streamId,
    headerBlock([["grpc-status", String(status)]]),
  );
}

/** grpcOk is a whole successful gRPC response on `streamId` with one message (empty by default). */
export function grpcOk(streamId: number, message: Uint8Array = Buffer.alloc(0)): Buffer {
  return Buffer.concat([
    responseHeaders(streamId),
    h2Frame(h2.type.data, 0, streamId, grpcMessage(message)),
    trailers(streamId),
  ]);
}

/**
 * PeerConnection is one connection a RawH2Peer accepted: it checks the client's preface, cuts what
 * follows into frames (kept in `frames`, and emitted as 'frame'), acknowledges the client's
 * SETTINGS, and emits 'stream' (id) for a request's first HEADERS and 'request' (id, body) once the
 * request has ended (END_STREAM). It answers nothing else by itself: the test's script does.
 */
export class PeerConnection extends EventEmitter {
  readonly frames: RawFrame[] = [];
  /** Request bodies (DATA payloads) by stream, complete once the stream's END_STREAM came. */
  readonly bodies = new Map<number, Buffer[]>();
  /** "ok" once the preface came, "bad" if the first bytes were something else. */
  preface: "waiting" | "ok" | "bad" = "waiting";
  #buffer: Buffer = Buffer.alloc(0);

  constructor(
    readonly socket: Socket,
    /** 0 for the peer's first connection, 1 for the next, ... */
    readonly index: number,
  ) {
    super();
    socket.setNoDelay(true); // small frames answered one by one: no Nagle wait for the client's delayed ACK
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
  }

  /** send writes `bytes` unless the socket has gone. */
  send(...bytes: Buffer[]): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(Buffer.concat(bytes));
  }

  /** goawayCode is the error code of the first GOAWAY the client sent, if any. */
  goawayCode(): number | undefined {
    return this.frames.find((f) => f.type === h2.type.goaway)?.payload.readUInt32BE(4);
  }

  /** waitFor resolves with the first frame (received or to come) that `match` accepts, or rejects after `boundMs`. */
  waitFor(match: (f: RawFrame) => boolean, what: string, boundMs = 5_000): Promise<RawFrame> {
    const seen = this.frames.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off("frame", onFrame);
        reject(new Error(`the client did not send ${what} within ${boundMs} ms`));
      }, boundMs);
      const onFrame = (f: RawFrame) => {
        if (!match(f)) return;
        clearTimeout(timer);
        this.off("frame", onFrame);
        resolve(f);
      };
      this.on("frame", onFrame);
    });
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.byteLength === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (this.preface === "waiting") {
      if (this.#buffer.byteLength < preface.byteLength) return;
      this.preface = this.#buffer.subarray(0, preface.byteLength).equals(preface) ? "ok" : "bad";
      if (this.preface === "bad") {
        this.socket.destroy();
        return;
      }
      this.#buffer = this.#buffer.subarray(preface.byteLength);
    }
    while (this.#buffer.byteLength >= 9) {
      const length = this.#buffer.readUIntBE(0, 3);
      if (this.#buffer.byteLength < 9 + length) return;
      const f: RawFrame = {
        type: this.#buffer[3]!,
        flags: this.#buffer[4]!,
        streamId: this.#buffer.readUInt32BE(5) & 0x7fff_ffff,
        payload: Buffer.from(this.#buffer.subarray(9, 9 + length)),
      };
      this.#buffer = this.#buffer.subarray(9 + length);
      this.#handle(f);
    }
  }

  #handle(f: RawFrame): void {
    this.frames.push(f);
    if (f.type === h2.type.settings && (f.flags & h2.flag.ack) === 0) {
      this.send(h2Frame(h2.type.settings, h2.flag.ack, 0));
    }
    this.emit("frame", f);
    const endStream = (f.flags & h2.flag.endStream) !== 0;
    if (f.type === h2.type.headers && !this.bodies.has(f.streamId)) {
      this.bodies.set(f.streamId, []);
      this.emit("stream", f.streamId);
    } else if (f.type === h2.type.data) {
      this.bodies.get(f.streamId)?.push(f.payload);
    }
    if ((f.type === h2.type.headers || f.type === h2.type.data) && endStream) {
      this.emit("request", f.streamId, Buffer.concat(this.bodies.get(f.streamId) ?? []));
    }
  }
}

/**
 * RawH2Peer is a scripted HTTP/2 "server" on 127.0.0.1 made of a plain TCP server and hand-built
 * frames, for tests of how a client copes with a server that breaks the protocol (which node:http2
 * refuses to do). `script` runs for every accepted connection; it decides what to send.
 */
export class RawH2Peer {
  readonly connections: PeerConnection[] = [];

  private constructor(readonly server: Server) {}

  static async start(script: (conn: PeerConnection) => void): Promise<RawH2Peer> {
    const server = createServer();
    const peer = new RawH2Peer(server);
    server.on("connection", (socket) => {
      const conn = new PeerConnection(socket, peer.connections.length);
      peer.connections.push(conn);
      script(conn);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return peer;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** url is the peer's http:// URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** close destroys every connection and stops listening. */
  async close(): Promise<void> {
    for (const c of this.connections) c.socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * answerCalls is the script of a well-behaved gRPC server: SETTINGS (with `values`), then every
 * request, once it has ended, answered OK with `message` (empty by default).
 */
export function answerCalls(
  conn: PeerConnection,
  values: ReadonlyArray<readonly [number, number]> = [],
  message?: Uint8Array,
): void {
  conn.send(settings(values));
  conn.on("request", (id: number) => conn.send(grpcOk(id, message)));
}
