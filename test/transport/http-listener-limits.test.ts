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
async function post(
  address: string,
  path: string,
  body: Buffer,
): Promise<{ status: number | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `http://${address}${path}`,
      { method: "POST", headers: { "content-type": "application/connect+proto", "connect-protocol-version": "1" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("latin1") }));
      },
    );
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
    const header = toBinary(
      UploadFileRequestSchema,
      create(UploadFileRequestSchema, { part: { case: "header", value: { path: "t.txt" } } }),
    );
    const data = toBinary(
      UploadFileRequestSchema,
      create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.alloc(1000, 97) } }),
    );
    const body = Buffer.concat([frame(header), frame(data)]);
    const cut = await post(
      server.httpAddress!,
      "/toolhost.files.v1.FileTools/UploadFile",
      body.subarray(0, body.length - 10),
    );
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

describe("the HTTP listener's receive buffer", () => {
  let server: TestServer;
  const budget = 3 * 1024 * 1024;
  before(async () => {
    server = await startTestServer({
      http: true,
      limits: { maxReceiveBufferBytes: budget, maxReceiveBufferBytesPerConnection: 1024 * 1024 },
    });
  });
  after(() => server.close());

  /** stall opens a request declaring `length` body bytes, sends 10 of them and waits. */
  async function stall(length: number) {
    const { connect } = await import("node:net");
    const [host, port] = server.httpAddress!.split(":");
    const socket = connect(Number(port), host);
    socket.on("error", () => undefined);
    socket.write(
      `POST /toolhost.files.v1.FileTools/WriteFile HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/proto\r\nConnect-Protocol-Version: 1\r\nContent-Length: ${length}\r\n\r\n0123456789`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    return socket;
  }

  it("refuses a request that does not fit beside the bodies being received, reads none of it, and serves again once they end", async () => {
    const held = [await stall(1024 * 1024), await stall(1024 * 1024), await stall(1024 * 1024)];
    const writeBody = Buffer.from(
      JSON.stringify({ path: "refused.txt", data: Buffer.from("x".repeat(1000)).toString("base64") }),
    );
    const refused = await new Promise<{ status: number | undefined; text: string; connection: string | undefined }>(
      (resolve, reject) => {
        const req = request(
          `http://${server.httpAddress}/toolhost.files.v1.FileTools/WriteFile`,
          { method: "POST", headers: { "content-type": "application/json", "content-length": writeBody.length } },
          (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString()));
            res.on("end", () => resolve({ status: res.statusCode, text, connection: res.headers.connection }));
          },
        );
        req.on("error", reject);
        req.end(writeBody);
      },
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.connection, "keep-alive", "its body is discarded and the connection kept");
    const error = JSON.parse(refused.text) as {
      code: string;
      message: string;
      details: { debug: { reason: string; metadata: Record<string, string> } }[];
    };
    assert.equal(error.code, "resource_exhausted");
    assert.equal(
      error.message,
      `The server is receiving as many request bytes as limits.max_receive_buffer_bytes (${budget}) allows; retry in about 1000 ms, or send smaller requests.`,
    );
    assert.equal(error.details[0]!.debug.reason, "QUOTA_EXCEEDED");
    assert.equal(error.details[0]!.debug.metadata.retry_after_ms, "1000");
    assert.deepEqual(await readdir(server.root), []);

    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ok = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `http://${server.httpAddress}/toolhost.files.v1.FileTools/WriteFile`,
        { method: "POST", headers: { "content-type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        },
      );
      req.on("error", reject);
      req.end(writeBody);
    });
    assert.equal(ok, 200);
    assert.equal(await readFile(join(server.root, "refused.txt"), "utf8"), "x".repeat(1000));
  });

  it("lets one request larger than the whole budget in when nothing else is held", async () => {
    const body = Buffer.from(
      JSON.stringify({ path: "big.txt", data: Buffer.alloc(4 * 1024 * 1024, 98).toString("base64") }),
    );
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `http://${server.httpAddress}/toolhost.files.v1.FileTools/WriteFile`,
        { method: "POST", headers: { "content-type": "application/json", "content-length": body.length } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    assert.equal(status, 200);
    assert.equal((await readFile(join(server.root, "big.txt"))).length, 4 * 1024 * 1024);
  });
});
