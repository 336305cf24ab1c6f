// The TypeScript half of the latency measurement (bench/latency/run.sh): one 256 MiB ReadFile in
// bytes mode and one 256 MiB UploadFile, printing "LABEL read MB/s=..." and "LABEL upload MB/s=...".
// By default through @toolhost/client's createClient as installed (clients/ts/dist, or another
// build with --client-dist, e.g. another commit's; --grpc-transport NAME passes `grpcTransport`
// to a client that still had several). With --connect-node, through connect-node's own
// createGrpcTransport and Connect's createClient instead, given the wide HTTP/2 windows a client
// needs over a long round trip the way docs/clients.md shows it ("Over a long round trip").
//
// Usage: node --import tsx bench/latency/ts-client.ts ADDR [--label L] [--client-dist DIR] [--grpc-transport NAME] [--connect-node] [--path P]
import type http2 from "node:http2";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createClient as createConnectClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    label: { type: "string" },
    "client-dist": { type: "string" },
    "grpc-transport": { type: "string" },
    "connect-node": { type: "boolean" },
    path: { type: "string" },
  },
});
const addr = positionals[0] ?? "127.0.0.1:50051";
const file = values.path ?? "big.bin";
const label = values.label ?? (values["connect-node"] ? "connect-node" : "tsclient");

/** viaConnectNode is FileTools on connect-node's transport with an 8 MiB stream and 32 MiB connection window. */
function viaConnectNode(): Client<typeof FileTools> {
  const baseUrl = `http://${addr}`;
  const sessions = new Http2SessionManager(baseUrl, {}, { settings: { initialWindowSize: 8 * 1024 * 1024 } });
  const widened = new WeakSet<http2.Http2Session>();
  const transport = createGrpcTransport({
    baseUrl,
    sessionManager: {
      authority: sessions.authority,
      notifyResponseByteRead: (stream) => sessions.notifyResponseByteRead(stream),
      async request(...args) {
        const stream = await sessions.request(...args);
        const session = stream.session;
        if (session !== undefined && !widened.has(session)) {
          widened.add(session);
          session.setLocalWindowSize(32 * 1024 * 1024);
        }
        return stream;
      },
    },
  });
  return createConnectClient(FileTools, transport);
}

/** viaToolhostClient is FileTools from the built @toolhost/client in `dist`. */
async function viaToolhostClient(dist: string): Promise<Client<typeof FileTools>> {
  const { createClient } = (await import(
    pathToFileURL(path.join(dist, "src/index.js")).href
  )) as typeof import("../../clients/ts/src/index.js");
  const grpcTransport = values["grpc-transport"];
  return createClient(addr, (grpcTransport === undefined ? {} : { grpcTransport }) as never).files as unknown as Client<
    typeof FileTools
  >;
}

const client = values["connect-node"]
  ? viaConnectNode()
  : await viaToolhostClient(
      path.resolve(values["client-dist"] ?? new URL("../../clients/ts/dist", import.meta.url).pathname),
    );

let start = performance.now();
let bytes = 0;
for await (const message of client.readFile({ path: file, mode: ReadMode.BYTES })) {
  if (message.part.case === "data") bytes += message.part.value.byteLength;
}
console.log(`${label} read MB/s=${(bytes / ((performance.now() - start) / 1000) / 1e6).toFixed(1)}`);

const chunk = new Uint8Array(1024 * 1024).fill(7);
const total = 256;
async function* requests() {
  yield { part: { case: "header" as const, value: { path: `${label}-upload.bin` } } };
  for (let i = 0; i < total; i++) yield { part: { case: "data" as const, value: chunk } };
}
start = performance.now();
await client.uploadFile(requests());
console.log(
  `${label} upload MB/s=${((total * chunk.byteLength) / ((performance.now() - start) / 1000) / 1e6).toFixed(1)}`,
);
process.exit(0);
