// Example program for @toolhost/client, compiled under `tsc --strict` in a scratch project by
// test/clients/ts-client-package.stress.test.ts. Usage: node main.js HOST:PORT
// Lists the tools (FileTools' and the model-facing Tools service's, in the OpenAI shape), uploads a
// file from a path and from a stream, reads it back three ways, and prints the ErrorInfo reason of
// a refused path. Imports a generated module by its subpath too.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import {
  Dialect,
  ErrorReason,
  WatchEventType,
  createClient,
  hasReason,
  readBytes,
  readText,
  readTo,
  reason,
  uploadPath,
  uploadStream,
} from "@toolhost/client";
import { ReadMode } from "@toolhost/client/gen/toolhost/files/v1/read_pb.js";

const address = process.argv[2];
if (address === undefined) {
  throw new Error("usage: node main.js HOST:PORT");
}
const client = createClient(address);
const { files } = client;

const { tools } = await files.listTools({});
console.log(`tools ${tools.map((t) => t.name).join(",")}`);
const { rendered } = await client.tools.listTools({ dialect: Dialect.OPENAI });
const modelTools = (JSON.parse(rendered) as { function: { name: string } }[]).map((t) => t.function.name);
console.log(
  `model tools file_read=${modelTools.includes("file_read")} ${ReadMode[ReadMode.BYTES]} ${WatchEventType[WatchEventType.CREATED]}`,
);

const local = join(tmpdir(), `toolhost-client-example-${process.pid}.bin`);
const content = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
writeFileSync(local, content);
const fromPath = await uploadPath(files, local, "uploaded.bin", { createParents: true });
console.log(`uploadPath size=${fromPath.size} sha256=${fromPath.sha256}`);
const fromStream = await uploadStream(files, "streamed.txt", Readable.from(["hello ", "world\n"]));
console.log(`uploadStream size=${fromStream.size}`);

const bytes = await readBytes(files, "uploaded.bin", { byteOffset: 0 });
console.log(
  `readBytes ${bytes.length} ${createHash("sha256").update(bytes).digest("hex") === fromPath.sha256 ? "same" : "DIFFERENT"}`,
);
console.log(`readText ${JSON.stringify(await readText(files, "streamed.txt"))}`);
const sink = new PassThrough();
let piped = 0;
sink.on("data", (c: Buffer) => (piped += c.length));
const { summary } = await readTo(files, "uploaded.bin", sink, { byteOffset: 1, byteLimit: 1000 });
console.log(`readTo ${piped} bytes_sent=${summary.bytesSent}`);

try {
  await readText(files, "../../etc/passwd");
} catch (err) {
  console.log(`reason ${reason(err)} ${hasReason(err, ErrorReason.PATH_TRAVERSAL)}`);
}
const down = createClient("127.0.0.1:1");
try {
  await down.files.listTools({});
} catch (err) {
  console.log(`unavailable reason=${String(reason(err))}`);
}
