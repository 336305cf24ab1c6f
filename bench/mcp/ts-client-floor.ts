// Where the TypeScript client's time per small call goes: the same three small calls (StatFile,
// a 35 KB text ReadFile, a single-replacement EditFile of a 4 KB file) against one toolhost through
// clients/ts createClient ("toolhost"), through connect-node's own createGrpcTransport and
// Connect's createClient on the same session manager ("connect-node", what the client would be
// without its transport, docs/adr/0005-client-transport.md), through @grpc/grpc-js's generic
// client ("grpc-js") and through a bare node:http2 request with hand-framed gRPC ("http2", the
// floor for a Node client). One client per process, like
// small-calls.sh, so each starts cold; prints "client work wall-ms cpu-ms" medians (cpu is the
// client process's user+system time per call).
//
// Usage: node --import tsx bench/mcp/ts-client-floor.ts --toolhost ADDR --dir ROOT --client NAME [--rounds 7] [--warm 1]
// (ROOT is the server's root: the script writes 35k.txt there if missing and edit-<client>.txt.)
import { existsSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { createClient as createConnectClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createClient, WideWindowSessionManager } from "../../clients/ts/src/index.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { EditFileRequestSchema, EditFileResponseSchema } from "../../gen/ts/toolhost/files/v1/edit_pb.js";
import { ReadFileRequestSchema, ReadFileResponseSchema, ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { StatFileRequestSchema, StatFileResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";

const { values } = parseArgs({
  options: {
    toolhost: { type: "string" },
    dir: { type: "string" },
    client: { type: "string" },
    rounds: { type: "string" },
    warm: { type: "string" },
  },
});
const addr = values.toolhost ?? "127.0.0.1:50051";
const who = values.client ?? "toolhost";
const rounds = Number(values.rounds ?? "7");
const warm = Number(values.warm ?? "1");
const dir = values.dir ?? ".";
if (!existsSync(join(dir, "35k.txt"))) writeFileSync(join(dir, "35k.txt"), "x".repeat(75).concat("\n").repeat(460));
const editFile = `edit-floor-${who}.txt`;
writeFileSync(join(dir, editFile), `${"a".repeat(2000)}\nalpha-marker\n${"b".repeat(2000)}\n`);
let flips = 0;
const edit = () =>
  flips++ % 2 === 0
    ? { oldText: "alpha-marker", newText: "omega-marker" }
    : { oldText: "omega-marker", newText: "alpha-marker" };
const statReq = () => create(StatFileRequestSchema, { path: "35k.txt" });
const readReq = () => create(ReadFileRequestSchema, { path: "35k.txt", mode: ReadMode.TEXT });
const editReq = () =>
  create(EditFileRequestSchema, { path: editFile, edits: [{ kind: { case: "replace", value: edit() } }] });
type Calls = Record<"stat" | "read35k" | "edit4k", () => Promise<unknown>>;

/** viaClient makes the calls through clients/ts createClient, or connect-node's transport on its session manager. */
function viaClient(connectNode: boolean): Calls {
  const baseUrl = `http://${addr}`;
  const files = connectNode
    ? createConnectClient(
        FileTools,
        createGrpcTransport({ baseUrl, sessionManager: new WideWindowSessionManager(baseUrl) }),
      )
    : createClient(addr).files;
  return {
    stat: () => files.statFile(statReq()),
    read35k: async () => {
      let n = 0;
      for await (const m of files.readFile(readReq())) if (m.part.case === "text") n += m.part.value.length;
      return n;
    },
    edit4k: () => files.editFile(editReq()),
  };
}

/** viaHttp2 makes the calls as single node:http2 requests, framing and checking gRPC by hand. */
function viaHttp2(): Calls {
  const session = http2.connect(`http://${addr}`);
  async function call<O extends DescMessage>(method: string, body: Uint8Array, out: O) {
    const stream = session.request({
      ":method": "POST",
      ":path": `/toolhost.files.v1.FileTools/${method}`,
      "content-type": "application/grpc",
      te: "trailers",
    });
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    stream.end(frame);
    const chunks: Buffer[] = [];
    let status: unknown;
    stream.on("trailers", (t) => (status = t["grpc-status"]));
    stream.on("data", (c: Buffer) => chunks.push(c));
    await new Promise((resolve, reject) => stream.on("end", resolve).on("error", reject));
    if (status !== "0") throw new Error(`${method}: grpc-status ${String(status)}`);
    const all = Buffer.concat(chunks);
    const messages = [];
    for (let o = 0; o < all.length; o += 5 + all.readUInt32BE(o + 1))
      messages.push(fromBinary(out, all.subarray(o + 5, o + 5 + all.readUInt32BE(o + 1))));
    return messages;
  }
  return {
    stat: () => call("StatFile", toBinary(StatFileRequestSchema, statReq()), StatFileResponseSchema),
    read35k: () => call("ReadFile", toBinary(ReadFileRequestSchema, readReq()), ReadFileResponseSchema),
    edit4k: () => call("EditFile", toBinary(EditFileRequestSchema, editReq()), EditFileResponseSchema),
  };
}

/** viaGrpcJs makes the calls through @grpc/grpc-js's generic client with the generated codecs. */
function viaGrpcJs(): Calls {
  const method = <I extends DescMessage, O extends DescMessage>(
    name: string,
    input: I,
    output: O,
    responseStream: boolean,
  ) =>
    ({
      path: `/toolhost.files.v1.FileTools/${name}`,
      requestStream: false,
      responseStream,
      originalName: name,
      requestSerialize: (m: never) => Buffer.from(toBinary(input, m)),
      requestDeserialize: (b: Buffer) => fromBinary(input, b),
      responseSerialize: (m: never) => Buffer.from(toBinary(output, m)),
      responseDeserialize: (b: Buffer) => fromBinary(output, b),
    }) as unknown as grpc.MethodDefinition<object, object>;
  const Ctor = grpc.makeGenericClientConstructor(
    {
      StatFile: method("StatFile", StatFileRequestSchema, StatFileResponseSchema, false),
      ReadFile: method("ReadFile", ReadFileRequestSchema, ReadFileResponseSchema, true),
      EditFile: method("EditFile", EditFileRequestSchema, EditFileResponseSchema, false),
    },
    "FileTools",
  );
  const c = new Ctor(addr, grpc.credentials.createInsecure()) as unknown as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  const unary = (name: string, req: unknown) =>
    new Promise((resolve, reject) => c[name]!(req, (e: unknown, v: unknown) => (e ? reject(e) : resolve(v))));
  return {
    stat: () => unary("StatFile", statReq()),
    read35k: () =>
      new Promise((resolve, reject) => {
        const s = c["ReadFile"]!(readReq()) as grpc.ClientReadableStream<unknown>;
        s.on("data", () => {})
          .on("error", reject)
          .on("end", resolve);
      }),
    edit4k: () => unary("EditFile", editReq()),
  };
}

const clients: Record<string, () => Calls> = {
  toolhost: () => viaClient(false),
  "connect-node": () => viaClient(true),
  "grpc-js": viaGrpcJs,
  http2: viaHttp2,
};
const calls = clients[who]?.();
if (calls === undefined) throw new Error(`--client must be one of ${Object.keys(clients).join(", ")}`);
const results: Record<string, { wall: number[]; cpu: number[] }> = {};
for (let round = -warm; round < rounds; round++) {
  for (const [work, fn] of Object.entries(calls)) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(cpu);
    const entry = (results[work] ??= { wall: [], cpu: [] });
    if (round >= 0) {
      entry.wall.push(performance.now() - start);
      entry.cpu.push((used.user + used.system) / 1000);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [work, r] of Object.entries(results))
  console.log(`${who} ${work} ${median(r.wall).toFixed(3)} ${median(r.cpu).toFixed(3)}`);
process.exit(0);
