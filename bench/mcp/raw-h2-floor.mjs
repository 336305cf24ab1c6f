// raw-h2-floor.mjs: what bench:mcp's three calls would cost a Node client without node:http2 — a
// MEASUREMENT, not a client. It speaks just enough HTTP/2 over one net.Socket for these calls, one
// at a time: the preface and settings (8 MiB stream / 32 MiB connection windows, as clients/ts
// asks), each request as one HEADERS frame (HPACK literals, no Huffman, no dynamic table) and one
// DATA frame with END_STREAM in a single write, the response's DATA frames cut into gRPC messages
// and decoded with protobuf-es, WINDOW_UPDATEs as data is consumed, SETTINGS and PING
// acknowledged. It does not decode the response's header blocks (HPACK): a call ends at the
// stream's END_STREAM and is taken as successful, so it only stands for the cost of the
// successful path. Prints "raw work ms" and "raw work.cpu ms" (process CPU) per call, like
// ts-and-mcp.mjs; bench/README.md (section mcp, tsclient4) compares it with clients/ts.
//
// Usage: node bench/mcp/raw-h2-floor.mjs --toolhost ADDR --rounds N [--who NAME]  (edits edit-NAME.txt, default ts)
import net from "node:net";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
// The generated messages as clients/ts builds them (small-calls.sh builds it).
import { ReadFileRequestSchema, ReadFileResponseSchema, ReadMode } from "../../clients/ts/dist/gen/toolhost/files/v1/read_pb.js";
import { EditFileRequestSchema, EditFileResponseSchema } from "../../clients/ts/dist/gen/toolhost/files/v1/edit_pb.js";
// clients/ts's own message splitter and buffer recycler, so that only the HTTP/2 layer differs.
import { EnvelopeSplitter } from "../../clients/ts/dist/src/transport/grpc-envelope.js";
import { BufferRecycler } from "../../clients/ts/dist/src/transport/buffer-recycler.js";

const { values } = parseArgs({ options: { toolhost: { type: "string" }, rounds: { type: "string" }, who: { type: "string" } } });
const [host, port] = (values.toolhost ?? "127.0.0.1:50051").split(":");
const rounds = Number(values.rounds ?? "7");
const who = values.who ?? "ts";

const frame = (type, flags, stream, payload) => {
  const f = Buffer.allocUnsafe(9 + payload.length);
  f.writeUIntBE(payload.length, 0, 3);
  f[3] = type;
  f[4] = flags;
  f.writeUInt32BE(stream, 5);
  payload.copy(f, 9);
  return f;
};
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const settings = Buffer.concat([Buffer.from([0, 4]), u32(8 << 20)]); // INITIAL_WINDOW_SIZE 8 MiB
/** literal header field without indexing, new name, no Huffman (lengths < 127). */
const literal = (name, value) => Buffer.concat([Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
const authority = `${host}:${port}`;
const headerBlock = (path) => Buffer.concat([
  Buffer.from([0x83, 0x86]), // :method POST, :scheme http (static table)
  Buffer.from([0x04, path.length]), Buffer.from(path), // :path, name from the static table
  Buffer.from([0x01, authority.length]), Buffer.from(authority), // :authority
  literal("content-type", "application/grpc+proto"), literal("te", "trailers"),
]);

const socket = net.connect({ host, port: Number(port), noDelay: true });
await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
socket.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), frame(4, 0, 0, settings), frame(8, 0, 0, u32((32 << 20) - 65535))]));

let nextStream = 1;
const recycler = new BufferRecycler(4 * 1024 * 1024);
let call; // { stream, messages: Buffer[], pending: Buffer[], consumed, done }
let inbuf = Buffer.alloc(0);
let connConsumed = 0;
socket.on("data", (chunk) => {
  inbuf = inbuf.length === 0 ? chunk : Buffer.concat([inbuf, chunk]);
  let o = 0;
  const out = [];
  while (inbuf.length - o >= 9) {
    const len = inbuf.readUIntBE(o, 3);
    if (inbuf.length - o < 9 + len) break;
    const type = inbuf[o + 3], flags = inbuf[o + 4], stream = inbuf.readUInt32BE(o + 5) & 0x7fffffff;
    const payload = inbuf.subarray(o + 9, o + 9 + len);
    o += 9 + len;
    if (type === 4 && !(flags & 1)) out.push(frame(4, 1, 0, Buffer.alloc(0))); // SETTINGS ack
    else if (type === 6 && !(flags & 1)) out.push(frame(6, 1, 0, payload)); // PING ack
    else if (type === 7) throw new Error("GOAWAY");
    else if (call !== undefined && stream === call.stream) {
      if (type === 0) {
        call.splitter.push(payload, call.onMessage); // payload: a view of the received chunk
        call.consumed += len;
        connConsumed += len;
        if (call.consumed >= 4 << 20) {
          out.push(frame(8, 0, stream, u32(call.consumed)));
          call.consumed = 0;
        }
      }
      if (type === 3) throw new Error(`RST_STREAM ${payload.readUInt32BE(0)}`);
      if (flags & 1) {
        const c = call;
        call = undefined;
        c.done();
      }
    }
  }
  inbuf = o === inbuf.length ? Buffer.alloc(0) : inbuf.subarray(o);
  if (connConsumed >= 16 << 20) {
    out.push(frame(8, 0, 0, u32(connConsumed)));
    connConsumed = 0;
  }
  if (out.length > 0) socket.write(Buffer.concat(out));
});

/** rpc sends one request and resolves with the response messages, decoded. */
function rpc(path, body, schema) {
  const stream = nextStream;
  nextStream += 2;
  const grpc = Buffer.allocUnsafe(5 + body.length);
  grpc[0] = 0;
  grpc.writeUInt32BE(body.length, 1);
  grpc.set(body, 5);
  return new Promise((resolve) => {
    const messages = [];
    call = {
      stream,
      consumed: 0,
      splitter: new EnvelopeSplitter(0xffffffff, recycler),
      onMessage: (bytes) => {
        const m = fromBinary(schema, bytes);
        messages.push(m);
        return m.part?.case !== "data"; // text, info, summary: no view of the bytes kept
      },
      done: () => resolve(messages),
    };
    socket.write(Buffer.concat([frame(1, 4, stream, headerBlock(path)), frame(0, 1, stream, grpc)]));
  });
}

const read = async (path) => (await rpc("/toolhost.files.v1.FileTools/ReadFile", toBinary(ReadFileRequestSchema, create(ReadFileRequestSchema, { path, mode: ReadMode.TEXT })), ReadFileResponseSchema))
  .reduce((n, m) => n + (m.part.case === "text" ? m.part.value.length : 0), 0);
const edit = (r) => (r % 2 === 0 ? { oldText: "alpha-marker", newText: "omega-marker" } : { oldText: "omega-marker", newText: "alpha-marker" });
const calls = {
  read35k: () => read("35k.txt"),
  edit4k: (r) => rpc("/toolhost.files.v1.FileTools/EditFile", toBinary(EditFileRequestSchema, create(EditFileRequestSchema, { path: `edit-${who}.txt`, edits: [{ kind: { case: "replace", value: edit(r) } }] })), EditFileResponseSchema),
  read10m: () => read("10m.txt"),
};
for (let round = -1; round < rounds; round++) {
  for (const work of ["read35k", "edit4k", "read10m"]) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await calls[work](round + 1);
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (round >= 0) console.log(`raw ${work} ${ms.toFixed(3)}\nraw ${work}.cpu ${((used.user + used.system) / 1000).toFixed(3)}`);
  }
}
process.exit(0);
