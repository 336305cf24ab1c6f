// The raw node:http2 server of bench/compare: FileTools.ReadFile (bytes mode) with gRPC framed by
// hand, doing the same work as toolhost and the grpc-go reference (open, fstat, read chunks,
// sha256 of every chunk, an info message, one message per chunk, a summary) with no gRPC library
// at all: the Node.js ceiling for a streamed read on this machine. Each chunk is read into a
// buffer with room in front for the 5-byte gRPC prefix and the protobuf field header, which are
// then written in place, so one allocation carries the whole frame and nothing is copied.
// Hand-written because no library frames gRPC over node:http2 without its own copies.
//
// Usage: node --import tsx bench/compare/raw-http2.ts --listen 127.0.0.1:PORT --root DIR
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import http2, { type ServerHttp2Stream } from "node:http2";
import path from "node:path";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ReadFileRequestSchema, ReadFileResponseSchema, ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";

const { values } = parseArgs({ options: { listen: { type: "string" }, root: { type: "string" } } });
const root = values.root ?? ".";
const [host, port] = (values.listen ?? "127.0.0.1:0").split(":");
const ROOM = 11; // 5-byte gRPC prefix + 1 tag byte + up to 5 varint length bytes

/** frame prepends the 5-byte gRPC prefix to an encoded message. */
function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** varintLength is the number of bytes of n as a protobuf varint. */
function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n >>>= 7;
    len++;
  }
  return len;
}

/** write sends one buffer, waiting for 'drain' when the stream's buffer is full. */
async function write(stream: ServerHttp2Stream, buf: Buffer): Promise<void> {
  if (!stream.write(buf)) await once(stream, "drain");
}

async function readFile(stream: ServerHttp2Stream, body: Buffer): Promise<void> {
  const request = fromBinary(ReadFileRequestSchema, body.subarray(5));
  const handle = await open(path.join(root, request.path), "r");
  try {
    const stats = await handle.stat();
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    const info = create(ReadFileResponseSchema, {
      part: {
        case: "info",
        value: {
          path: request.path,
          size: BigInt(stats.size),
          encoding: "binary",
          mode: ReadMode.BYTES,
          modified: timestampFromDate(stats.mtime),
          fileMode: stats.mode & 0o777,
        },
      },
    });
    await write(stream, frame(toBinary(ReadFileResponseSchema, info)));
    const chunk = request.chunkSize || 1 << 20;
    const hash = createHash("sha256");
    let sent = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(ROOM + chunk);
      const { bytesRead: n } = await handle.read(buf, ROOM, chunk, null);
      if (n === 0) break;
      const data = buf.subarray(ROOM, ROOM + n);
      hash.update(data);
      sent += n;
      // Field 3 (data), wire type 2: tag 0x1a, varint length, then the bytes already in place.
      const start = ROOM - 6 - varintLength(n);
      buf[start] = 0;
      buf.writeUInt32BE(1 + varintLength(n) + n, start + 1);
      buf[start + 5] = 0x1a;
      let at = start + 6;
      for (let v = n; ; v >>>= 7) {
        if (v < 0x80) {
          buf[at++] = v;
          break;
        }
        buf[at++] = (v & 0x7f) | 0x80;
      }
      await write(stream, buf.subarray(start, ROOM + n));
      if (n < chunk) break;
    }
    const summary = create(ReadFileResponseSchema, {
      part: {
        case: "summary",
        value: { bytesSent: BigInt(sent), sha256: hash.digest("hex"), eof: true, nextOffset: BigInt(sent) },
      },
    });
    await write(stream, frame(toBinary(ReadFileResponseSchema, summary)));
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end();
  } finally {
    await handle.close();
  }
}

const server = http2.createServer({ settings: { initialWindowSize: 16 << 20 } });
server.on("stream", (stream, headers) => {
  const parts: Buffer[] = [];
  stream.on("data", (d: Buffer) => parts.push(d));
  stream.on("end", () => {
    if (headers[":path"] !== "/toolhost.files.v1.FileTools/ReadFile") {
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "12" }, { endStream: true });
      return;
    }
    readFile(stream, Buffer.concat(parts)).catch((err: unknown) => {
      if (stream.headersSent) {
        stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        return;
      }
      stream.respond(
        {
          ":status": 200,
          "content-type": "application/grpc",
          "grpc-status": "5",
          "grpc-message": encodeURIComponent(String(err)),
        },
        { endStream: true },
      );
    });
  });
  stream.on("error", () => {});
});
server.listen(Number(port), host, () => console.error(`raw http2 listening on ${port}`));
