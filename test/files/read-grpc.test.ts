import assert from "node:assert/strict";
import { mkdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ReadMode, type ReadFileRequest } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { FileType } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { sha256 } from "./read-helpers.js";

type ReadInit = Partial<Omit<ReadFileRequest, "$typeName">>;

let server: TestServer;

before(async () => {
  server = await startTestServer({ limits: { maxTextBytes: 1000 } });
  const root = server.root;
  await writeFile(path.join(root, "lines.txt"), "line1\nline2\nline3\nline4");
  await writeFile(path.join(root, "image.png"), Buffer.from("89504e470d0a1a0a0000", "hex"));
  await writeFile(path.join(root, "huge.txt"), "x".repeat(1500));
  await mkdir(path.join(root, "dir"));
  await writeFile(path.join(root, "dir", "a.md"), "a");
  await symlink("/etc", path.join(root, "etc-link"));
});

after(async () => {
  await server.close();
});

async function read(init: ReadInit) {
  const messages = [];
  for await (const message of server.fileTools.readFile(init)) {
    messages.push(message);
  }
  return messages;
}

async function expectStatus(
  action: () => Promise<unknown>,
  code: Code,
  reason: string,
  words: string[],
): Promise<void> {
  await assert.rejects(action, (err: unknown) => {
    assert.ok(err instanceof ConnectError, String(err));
    assert.equal(err.code, code, err.message);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, reason);
    for (const word of words) assert.ok(err.message.includes(word), `${err.message} should contain ${word}`);
    return true;
  });
}

describe("FileTools read side over gRPC", () => {
  it("ReadFile with READ_MODE_UNSPECIFIED streams info, text, summary", async () => {
    const st = await stat(path.join(server.root, "lines.txt"));
    const messages = await read({ path: "lines.txt", offset: 1n, limit: 2n });
    assert.deepEqual(
      messages.map((m) => m.part.case),
      ["info", "text", "summary"],
    );
    const [info, text, summary] = messages.map((m) => m.part);
    assert.equal(info?.case, "info");
    if (info?.case === "info") {
      assert.equal(info.value.path, "lines.txt");
      assert.equal(info.value.size, 23n);
      assert.equal(info.value.encoding, "utf-8");
      assert.equal(info.value.mode, ReadMode.TEXT);
      assert.equal(info.value.fileMode, st.mode & 0o7777);
      assert.equal(timestampDate(info.value.modified!).getTime(), st.mtime.getTime());
    }
    assert.deepEqual(text, { case: "text", value: "line2\nline3\n" });
    assert.equal(summary?.case, "summary");
    if (summary?.case === "summary") {
      assert.equal(summary.value.linesSent, 2n);
      assert.equal(summary.value.nextOffset, 3n);
      assert.equal(summary.value.eof, false);
      assert.equal(summary.value.sha256, sha256("line2\nline3\n"));
    }
  });

  it("ReadFile in bytes mode sends data with a byte range", async () => {
    const messages = await read({ path: "image.png", mode: ReadMode.BYTES, byteOffset: 1n, byteLimit: 3n });
    const data = messages.flatMap((m) => (m.part.case === "data" ? [m.part.value] : []));
    assert.deepEqual(Buffer.concat(data), Buffer.from("PNG"));
    const info = messages[0]?.part;
    assert.equal(info?.case === "info" && info.value.mode, ReadMode.BYTES);
  });

  // An empty path, "../../etc/passwd", a missing file, a folder and a binary file are
  // features/read-file.feature's cases (code, reason, message); too large stays here for the
  // sizes its configured limit names.
  it("maps refusals to gRPC codes with an ErrorInfo reason", async () => {
    await expectStatus(() => read({ path: "etc-link/passwd" }), Code.PermissionDenied, "PATH_TRAVERSAL", ["traversal"]);
    await expectStatus(() => read({ path: "huge.txt" }), Code.ResourceExhausted, "TOO_LARGE", [
      "too large",
      "1500",
      "1000",
    ]);
    await expectStatus(
      () => read({ path: "lines.txt", mode: ReadMode.BYTES, byteOffset: 24n }),
      Code.OutOfRange,
      "OUT_OF_RANGE",
      ["past the end"],
    );
    await expectStatus(
      () => read({ path: "lines.txt", mode: 7 as ReadMode }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      ["mode"],
    );
  });

  it("StatFile returns type, size, mode, hash and binary", async () => {
    const response = await server.fileTools.statFile({ path: "image.png", includeSha256: true });
    assert.equal(response.type, FileType.FILE);
    assert.equal(response.size, 10n);
    assert.equal(response.binary, true);
    assert.equal(response.sha256, sha256(Buffer.from("89504e470d0a1a0a0000", "hex")));
    const dir = await server.fileTools.statFile({ path: "dir" });
    assert.equal(dir.type, FileType.DIRECTORY);
  });

  it("ListDirectory pages entries with types", async () => {
    const first = await server.fileTools.listDirectory({ path: "", pageSize: 2 });
    assert.deepEqual(
      first.entries.map((e) => [e.path, e.type]),
      [
        ["dir", FileType.DIRECTORY],
        ["etc-link", FileType.SYMLINK],
      ],
    );
    const rest = await server.fileTools.listDirectory({
      path: "",
      pageSize: 100,
      pageToken: first.nextPageToken,
      recursive: false,
    });
    assert.deepEqual(
      rest.entries.map((e) => e.path),
      ["huge.txt", "image.png", "lines.txt"],
    );
    await expectStatus(
      () => server.fileTools.listDirectory({ path: "", pageToken: "garbage" }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      ["page_token"],
    );
  });
});
