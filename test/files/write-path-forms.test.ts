import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const reserved = "notes/.toolhost-tmp-0123456789abcdef0123456789abcdef";

async function refusal(call: Promise<unknown>): Promise<ConnectError> {
  return call.then(
    () => assert.fail("expected a refusal"),
    (err: unknown) => ConnectError.from(err),
  );
}

describe("names reserved for temporary files", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await mkdir(path.join(server.root, "notes"));
  });
  after(() => server.close());

  it("cannot be written, since start-up would delete them", async () => {
    const err = await refusal(
      server.fileTools.writeFile({ path: reserved, content: { case: "text", value: "user data\n" } }),
    );
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "INVALID_PATH");
    assert.match(
      err.rawMessage,
      /^Cannot change "notes\/\.toolhost-tmp-0123456789abcdef0123456789abcdef": names starting with "\.toolhost-tmp-" are reserved/,
    );
    assert.deepEqual(await readdir(path.join(server.root, "notes")), []);
  });

  it("cannot be deleted, so a write in progress keeps its temporary file", async () => {
    await writeFile(path.join(server.root, reserved), "staged");
    const err = await refusal(server.fileTools.deleteFile({ path: reserved }));
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "INVALID_PATH");
    assert.equal(await readFile(path.join(server.root, reserved), "utf8"), "staged");
  });
});

describe("a path longer than the filesystem allows", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("is INVALID_PATH, creating nothing", async () => {
    const long = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(250, "x")).join("/") + "/f.txt";
    const err = await refusal(server.fileTools.writeFile({ path: long, content: { case: "text", value: "x" } }));
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "INVALID_PATH");
    assert.match(err.rawMessage, /longer than the filesystem allows; use a shorter path\.$/);
    assert.deepEqual(await readdir(server.root), []);
  });
});

describe("a file path with a trailing slash", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(path.join(server.root, "a.txt"), "keep");
  });
  after(() => server.close());

  for (const [name, call] of [
    ["a write", (s: TestServer) => s.fileTools.writeFile({ path: "a.txt/", content: { case: "text", value: "new" } })],
    [
      "a new file's write",
      (s: TestServer) => s.fileTools.writeFile({ path: "newf/", content: { case: "text", value: "new" } }),
    ],
    ["a delete", (s: TestServer) => s.fileTools.deleteFile({ path: "a.txt/" })],
    [
      "a read",
      async (s: TestServer) => {
        for await (const _ of s.fileTools.readFile({ path: "a.txt/" }));
      },
    ],
  ] as const) {
    it(`is refused for ${name}, changing nothing`, async () => {
      const err = await refusal(call(server));
      assert.equal(err.code, Code.FailedPrecondition);
      assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "NOT_A_REGULAR_FILE");
      assert.match(err.rawMessage, /^Not a regular file: ".*\/" ends with "\/", which names a directory/);
      assert.deepEqual(await readdir(server.root), ["a.txt"]);
      assert.equal(await readFile(path.join(server.root, "a.txt"), "utf8"), "keep");
    });
  }
});
