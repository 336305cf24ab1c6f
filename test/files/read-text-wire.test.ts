import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Text reads send valid UTF-8 as the bytes read (never decoded and encoded again on the server);
// these check, through real clients, that what arrives is exactly the file's text in every case
// that path has to get right: characters cut by chunk ends, invalid bytes, a cut character at
// the very end, chunk buffers reused across reads, and the Connect (HTTP/1.1) host.

const chunkSize = 4096;
let server: TestServer;
let http: Client<typeof FileTools>;
const files = new Map<string, Buffer>();

/** mixed is text whose 2-, 3- and 4-byte characters fall across every 4 KiB chunk boundary. */
function mixed(bytes: number): Buffer {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const piece = `line ${i}: é ü € 𝄞 中文 ${"x".repeat(i % 7)}\n`;
    parts.push(piece);
    n += Buffer.byteLength(piece);
  }
  return Buffer.from(parts.join(""));
}

before(async () => {
  server = await startTestServer({ http: true });
  http = createClient(
    FileTools,
    createConnectTransport({ baseUrl: `http://${server.httpAddress!}`, httpVersion: "1.1" }),
  );
  const big = mixed(600 * 1024); // past the size from which the hash runs on the worker
  const invalid = Buffer.concat([mixed(5000), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), mixed(9000)]);
  const cutAtEnd = Buffer.concat([mixed(6000), Buffer.from([0xe2, 0x82])]);
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), mixed(10_000)]);
  // Files of at most one chunk are read with a single read: the same cases, small.
  const small = {
    "small-bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), mixed(2000)]),
    "small-invalid.txt": Buffer.concat([
      mixed(1000),
      Buffer.from([0xc3, 0x28]),
      mixed(1000),
      Buffer.from([0xf0, 0x9d]),
    ]),
    "only-bom.txt": Buffer.from([0xef, 0xbb, 0xbf]),
  };
  for (const [name, content] of Object.entries({
    "big.txt": big,
    "invalid.txt": invalid,
    "cut-at-end.txt": cutAtEnd,
    "bom.txt": bom,
    ...small,
  })) {
    files.set(name, content);
    await writeFile(path.join(server.root, name), content);
  }
});

after(async () => {
  await server.close();
});

/** expected is what a text read of `content` must deliver: its decoded text (BOM stripped). */
function expected(content: Buffer): { text: string; replaced: number } {
  const body = content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? content.subarray(3) : content;
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(body);
  const literal = (body.toString("latin1").match(/\xef\xbf\xbd/g) ?? []).length;
  return { text, replaced: (text.match(/\ufffd/g) ?? []).length - literal };
}

async function readAll(client: Client<typeof FileTools>, name: string) {
  const chunks: string[] = [];
  let summary;
  for await (const message of client.readFile({ path: name, mode: ReadMode.TEXT, chunkSize })) {
    if (message.part.case === "text") chunks.push(message.part.value);
    if (message.part.case === "summary") summary = message.part.value;
  }
  assert.ok(summary !== undefined, "the stream ends with a summary");
  return { chunks, summary };
}

describe("ReadFile text mode on the wire", () => {
  for (const host of ["gRPC", "Connect over HTTP/1.1"] as const) {
    for (const name of [
      "big.txt",
      "invalid.txt",
      "cut-at-end.txt",
      "bom.txt",
      "small-bom.txt",
      "small-invalid.txt",
      "only-bom.txt",
    ]) {
      it(`${host}: ${name} arrives as its exact text, chunks within the chunk size, hashed as sent`, async () => {
        const { chunks, summary } = await readAll(host === "gRPC" ? server.fileTools : http, name);
        const want = expected(files.get(name)!);
        const text = chunks.join("");
        assert.equal(text.length, want.text.length);
        assert.ok(text === want.text, "the text is the file's text");
        for (const chunk of chunks) {
          assert.ok(Buffer.byteLength(chunk) <= chunkSize, `a chunk of ${Buffer.byteLength(chunk)} bytes`);
          assert.ok(!chunk.startsWith("\ufffd") || name !== "big.txt", "no character is split across chunks");
        }
        const utf8 = Buffer.from(text);
        assert.equal(summary.bytesSent, BigInt(utf8.length));
        assert.equal(summary.sha256, createHash("sha256").update(utf8).digest("hex"));
        assert.equal(summary.replacedSequences, BigInt(want.replaced));
        assert.equal(summary.eof, true);
      });
    }
  }

  it("gRPC: eight concurrent reads of one file, twice over (chunk buffers reused), all get the exact text", async () => {
    const want = expected(files.get("big.txt")!).text;
    for (let round = 0; round < 2; round++) {
      const reads = await Promise.all(Array.from({ length: 8 }, () => readAll(server.fileTools, "big.txt")));
      for (const { chunks, summary } of reads) {
        assert.ok(chunks.join("") === want, "the text is the file's text");
        assert.equal(summary.sha256, createHash("sha256").update(want).digest("hex"));
      }
    }
  });
});
