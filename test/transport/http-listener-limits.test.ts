import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { frame } from "../support/raw-grpc.js";

/** post sends a Connect streaming request body to the HTTP listener and returns status and body. */
async function post(address: string, path: string, body: Buffer): Promise<{ status: number | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`http://${address}${path}`, { method: "POST", headers: { "content-type": "application/connect+proto", "connect-protocol-version": "1" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("latin1") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the HTTP (connect-node) listener", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ http: true });
  });
  after(() => server.close());

  it("does not commit an upload whose last message is cut short", async () => {
    await writeFile(join(server.root, "t.txt"), "original\n");
    const header = toBinary(UploadFileRequestSchema, create(UploadFileRequestSchema, { part: { case: "header", value: { path: "t.txt" } } }));
    const data = toBinary(UploadFileRequestSchema, create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.alloc(1000, 97) } }));
    const body = Buffer.concat([frame(header), frame(data)]);
    const cut = await post(server.httpAddress!, "/toolhost.files.v1.FileTools/UploadFile", body.subarray(0, body.length - 10));
    assert.match(cut.text, /"code":"invalid_argument","message":"protocol error: incomplete envelope"/);
    assert.equal(await readFile(join(server.root, "t.txt"), "utf8"), "original\n");
    assert.deepEqual(await readdir(server.root), ["t.txt"]);
  });
});

describe("the HTTP listener's receive timeout", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ http: true, limits: { receiveMessageTimeoutMs: 400 } });
  });
  after(() => server.close());

  it("answers 408 and closes a request whose body stops half-way", async () => {
    const { connect } = await import("node:net");
    const [host, port] = server.httpAddress!.split(":");
    const socket = connect(Number(port), host);
    socket.on("error", () => undefined);
    socket.write(
      `POST /toolhost.files.v1.FileTools/StatFile HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/proto\r\nConnect-Protocol-Version: 1\r\nContent-Length: 1000\r\n\r\n0123456789`,
    );
    const started = Date.now();
    let reply = "";
    socket.on("data", (d: Buffer) => (reply += d.toString("latin1")));
    await new Promise((resolve) => socket.once("close", resolve));
    const took = Date.now() - started;
    assert.match(reply, /^HTTP\/1\.1 408 /);
    assert.ok(took >= 300 && took < 5000, `closed after ${took} ms`);
  });
});
