// demo shows the generated TypeScript client (Connect over gRPC, gen/ts): it lists the file
// tools, reads one file and reads a path outside the roots to show how a client branches on the
// ErrorInfo reason.
//
//   node --import tsx examples/ts/demo.ts [ADDR] [PATH]     (ADDR defaults to $TOOLHOST_ADDR)
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";

const addr = process.argv[2] ?? process.env.TOOLHOST_ADDR ?? "127.0.0.1:50051";
const path = process.argv[3] ?? "README.md";

// Plaintext HTTP/2 is fine on loopback; use an https:// baseUrl for a TLS server.
const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${addr}` }));

/** reason returns the google.rpc.ErrorInfo reason of a toolhost error, or "" when there is none. */
function reason(err: unknown): string {
  const info = ConnectError.from(err).findDetails(ErrorInfoSchema).find((i) => i.domain === "toolhost");
  return info?.reason ?? "";
}

/** readText concatenates the text chunks of a ReadFile stream; errors reject. */
async function readText(filePath: string): Promise<string> {
  let text = "";
  for await (const msg of client.readFile({ path: filePath }, { timeoutMs: 30_000 })) {
    if (msg.part.case === "text") {
      text += msg.part.value;
    }
  }
  return text;
}

const { tools } = await client.listTools({}, { timeoutMs: 30_000 });
for (const t of tools) {
  console.log(`tool ${t.name.padEnd(18)} read_only=${String(t.readOnly).padEnd(5)} writes=${String(t.writes).padEnd(5)} ${t.method}`);
}

const text = await readText(path);
console.log(`read ${path}: ${Buffer.byteLength(text)} bytes\n${text.replace(/\n$/, "")}`);

try {
  await readText("../../etc/passwd");
  throw new Error("reading ../../etc/passwd succeeded; the server should have refused it");
} catch (err) {
  if (reason(err) !== "PATH_TRAVERSAL") {
    throw err;
  }
  const e = ConnectError.from(err);
  console.log(`refused as expected: ${Code[e.code]}: ${e.rawMessage}`);
}
