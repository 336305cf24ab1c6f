// The bare @grpc/grpc-js server of bench/compare: FileTools.StatFile on grpc-js with the same
// generated protobuf-es code and the same file work as toolhost's (lstat, open, fstat, the first
// 8 KiB for the binary verdict, close) but no sandbox, adapter, deadline/abort plumbing or
// logging: the ceiling for a unary call on grpc-js on this machine. It also answers
// FileTools.ListTools with all of toolhost's file-tool descriptors, encoded once at start-up as
// toolhost caches its answer per tier.
//
// Usage: node --import tsx bench/compare/bare-grpc-js.ts --listen 127.0.0.1:PORT --root DIR
import { lstat, open } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { FileType, StatFileRequestSchema, StatFileResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { ListToolsResponseSchema } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { detectBinary } from "../../src/files/read/detect-binary.js";
import { fileToolDescriptors } from "../../src/service/file-tools/file-tool-descriptors.js";

const { values } = parseArgs({ options: { listen: { type: "string" }, root: { type: "string" } } });
const root = values.root ?? ".";

async function statFile(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): Promise<void> {
  const request = fromBinary(StatFileRequestSchema, call.request);
  const full = path.join(root, request.path);
  try {
    const link = await lstat(full);
    const handle = await open(full, "r");
    try {
      const stats = await handle.stat();
      const head = Buffer.allocUnsafe(Math.min(stats.size, 8192));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const response = create(StatFileResponseSchema, {
        path: request.path,
        type: FileType.FILE,
        size: BigInt(stats.size),
        mode: stats.mode & 0o7777,
        modified: timestampFromDate(stats.mtime),
        binary: detectBinary(head.subarray(0, bytesRead)).binary,
        symlink: link.isSymbolicLink(),
      });
      callback(null, Buffer.from(toBinary(StatFileResponseSchema, response)));
    } finally {
      await handle.close();
    }
  } catch (err) {
    callback({ code: status.NOT_FOUND, details: String(err) });
  }
}

const listToolsAnswer = Buffer.from(
  toBinary(ListToolsResponseSchema, create(ListToolsResponseSchema, { tools: [...fileToolDescriptors] })),
);

const server = new Server();
const identity = (b: Buffer) => b;
server.addService(
  {
    statFile: {
      path: "/toolhost.files.v1.FileTools/StatFile",
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
    listTools: {
      path: "/toolhost.files.v1.FileTools/ListTools",
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  },
  {
    listTools: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) =>
      callback(null, listToolsAnswer),
    statFile: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => void statFile(call, callback),
  },
);
server.bindAsync(values.listen ?? "127.0.0.1:0", ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.error(`bare grpc-js listening on ${port}`);
});
