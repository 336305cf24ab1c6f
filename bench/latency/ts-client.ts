// The TypeScript half of the latency measurement (bench/latency/run.sh): one 256 MiB ReadFile in
// bytes mode and one 256 MiB UploadFile through the generated Connect client, with the HTTP/2
// windows a client needs over a long round trip, printing MB/s of each. With CLIENT=toolhost the
// same calls go through @toolhost/client's createClient (its own HTTP/2 connection) instead,
// printed as "tsclient".
//
// Usage: [CLIENT=toolhost] node --import tsx bench/latency/ts-client.ts ADDR [PATH]
import http2 from "node:http2";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";

const [addr = "127.0.0.1:50051", path = "big.bin"] = process.argv.slice(2);
const streamWindow = 8 * 1024 * 1024;
const connectionWindow = 32 * 1024 * 1024;

/**
 * WideWindowSessionManager widens the connection's receive window on every session it opens:
 * Node's HTTP/2 client keeps 64 KiB for the connection whatever the settings say, which caps a
 * read near 1.3 MB/s at a 50 ms round trip; the stream window comes from `settings`.
 */
class WideWindowSessionManager extends Http2SessionManager {
  override async request(...args: Parameters<Http2SessionManager["request"]>): Promise<http2.ClientHttp2Stream> {
    const stream = await super.request(...args);
    const session = stream.session;
    if (session !== undefined && !widened.has(session)) {
      widened.add(session);
      session.setLocalWindowSize(connectionWindow);
    }
    return stream;
  }
}
const widened = new WeakSet<http2.Http2Session>();

const baseUrl = `http://${addr}`;
const transport = createGrpcTransport({
  baseUrl,
  sessionManager: new WideWindowSessionManager(baseUrl, undefined, { settings: { initialWindowSize: streamWindow } }),
});
const own = process.env.CLIENT === "toolhost";
const client = own ? (await import("../../clients/ts/src/create-client.js")).createClient(addr).files : createClient(FileTools, transport);
const label = own ? "tsclient" : "ts";

let start = performance.now();
let bytes = 0;
for await (const message of client.readFile({ path, mode: ReadMode.BYTES })) {
  if (message.part.case === "data") bytes += message.part.value.byteLength;
}
console.log(`${label} read MB/s=${(bytes / ((performance.now() - start) / 1000) / 1e6).toFixed(1)}`);

const chunk = new Uint8Array(1024 * 1024).fill(7);
const total = 256;
async function* requests() {
  yield { part: { case: "header" as const, value: { path: "ts-upload.bin" } } };
  for (let i = 0; i < total; i++) yield { part: { case: "data" as const, value: chunk } };
}
start = performance.now();
await client.uploadFile(requests());
console.log(`${label} upload MB/s=${((total * chunk.byteLength) / ((performance.now() - start) / 1000) / 1e6).toFixed(1)}`);
