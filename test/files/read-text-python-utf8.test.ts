import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { pythonEnvs } from "../support/python-envs.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Review: text reads send the file's validated bytes as they are. Python's protobuf runtime
// refuses a string field that is not valid UTF-8, so a Python client reading every kind of
// awkward text (characters cut by every chunk boundary, invalid sequences, a BOM, CRLF, a
// character cut by the end of the file) shows that every chunk is valid UTF-8 and that the
// summary's sha256 and bytes_sent are those of exactly the text received.
const repo = fileURLToPath(new URL("../..", import.meta.url));
const script = `
import hashlib, json, sys, grpc
from toolhost.files.v1 import file_tools_pb2_grpc, read_pb2
stub = file_tools_pb2_grpc.FileToolsStub(grpc.insecure_channel(sys.argv[1]))
out = {}
for name in sys.argv[3:]:
    for chunk in (int(sys.argv[2]), int(sys.argv[2]) + 1, int(sys.argv[2]) + 2, int(sys.argv[2]) + 3):
        text, summary = [], None
        for part in stub.ReadFile(read_pb2.ReadFileRequest(path=name, mode=read_pb2.READ_MODE_TEXT, chunk_size=chunk)):
            if part.WhichOneof("part") == "text":
                text.append(part.text)
            elif part.WhichOneof("part") == "summary":
                summary = part.summary
        data = "".join(text).encode("utf-8")
        out[name + "@" + str(chunk)] = {
            "text": "".join(text),
            "sha_ok": hashlib.sha256(data).hexdigest() == summary.sha256,
            "bytes_ok": len(data) == summary.bytes_sent,
            "replaced": summary.replaced_sequences,
        }
print(json.dumps(out))
`;

describe("text reads as a Python client sees them", () => {
  let server: TestServer;
  const chunk = 16;
  const files: Record<string, Buffer> = {};
  before(async () => {
    server = await startTestServer({ limits: { minChunkSize: chunk } });
    const unit = "ab€😀é\r\n";
    files["multi.txt"] = Buffer.from(Array.from({ length: 40 }, (_, i) => "x".repeat(i % 5) + unit).join(""));
    files["bom.txt"] = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from("😀line one\r\nline two €\r\n".repeat(8)),
    ]);
    files["invalid.txt"] = Buffer.concat(
      Array.from({ length: 12 }, (_, i) =>
        Buffer.concat([
          Buffer.from("text ".repeat(1 + (i % 4))),
          Buffer.from([[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf5], [0xe2, 0x82], [0xff], [0xf0, 0x9f, 0x98]][i % 6]!),
          Buffer.from("é€\n"),
        ]),
      ),
    );
    files["cut-end.txt"] = Buffer.concat([
      Buffer.from("ends inside a character ".repeat(3)),
      Buffer.from([0xf0, 0x9f, 0x98]),
    ]);
    for (const [name, content] of Object.entries(files)) await writeFile(join(server.root, name), content);
  });
  after(() => server.close());

  it("gets valid UTF-8 in every chunk, and a summary matching what it received", async () => {
    const { stdout } = await promisify(execFile)(
      pythonEnvs.newest,
      ["-c", script, server.address, String(chunk), ...Object.keys(files)],
      {
        env: { ...process.env, PYTHONPATH: join(repo, "gen/python") },
      },
    );
    const results = JSON.parse(stdout) as Record<
      string,
      { text: string; sha_ok: boolean; bytes_ok: boolean; replaced: number }
    >;
    for (const [key, r] of Object.entries(results)) {
      const name = key.split("@")[0]!;
      assert.ok(r.sha_ok, `${key}: sha256 of the text received`);
      assert.ok(r.bytes_ok, `${key}: bytes_sent`);
      const expected = new TextDecoder("utf-8", { ignoreBOM: false }).decode(files[name]!);
      assert.equal(r.text, expected, key);
      assert.equal(r.replaced > 0, name === "invalid.txt" || name === "cut-end.txt", `${key}: replaced ${r.replaced}`);
    }
  });
});
