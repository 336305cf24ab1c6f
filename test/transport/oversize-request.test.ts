import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

const limit = 100_000;

function errorInfo(err: unknown) {
  return ConnectError.from(err).findDetails(ErrorInfoSchema)[0];
}

async function rpcLine(server: SpawnedServer, method: string, seen: number): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const lines = server.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r["msg"] === "rpc" && r["method"] === method);
    if (lines.length > seen) return lines[seen]!;
    await sleep(20);
  }
  throw new Error(`no rpc line #${seen + 1} for ${method}`);
}

// A request message over limits.max_receive_message_bytes is refused by grpc-js or connect-node
// before any handler runs; it still gets TOO_LARGE with an ErrorInfo and a log line.
describe("a request message over the receive limit", { timeout: 60_000 }, () => {
  let dir: string;
  let server: SpawnedServer;
  const big = "x".repeat(2 * limit);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-oversize-"));
    await writeFile(join(dir, "config.yaml"), `limits:\n  max_receive_message_bytes: ${limit}\n`);
    server = await spawnServer(["--config", join(dir, "config.yaml"), "--root", dir, "--http-listen", "127.0.0.1:0"]);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("over gRPC: RESOURCE_EXHAUSTED, TOO_LARGE with size and limit, a log line, nothing written", async () => {
    const files = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
    const err = await files
      .writeFile({ path: "big.txt", content: { case: "text", value: big } })
      .catch((e: unknown) => e);
    assert.equal(ConnectError.from(err).code, Code.ResourceExhausted);
    assert.match(ConnectError.from(err).rawMessage, /over this server's limit of 100000 bytes .*UploadFile/);
    const info = errorInfo(err);
    assert.equal(info?.reason, "TOO_LARGE");
    assert.equal(info?.metadata["limit"], String(limit));
    assert.ok(Number(info?.metadata["size"]) > limit);
    const line = await rpcLine(server, "/toolhost.files.v1.FileTools/WriteFile", 0);
    assert.equal(line["code"], "RESOURCE_EXHAUSTED");
    assert.equal(line["reason"], "TOO_LARGE");
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
    assert.ok((await files.listTools({})).tools.length >= 4, "the connection still serves");
  });

  it("over gRPC, an upload chunk over the limit is TOO_LARGE too", async () => {
    const files = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
    async function* parts() {
      yield { part: { case: "header" as const, value: { path: "up.bin" } } };
      yield { part: { case: "data" as const, value: new Uint8Array(2 * limit) } };
    }
    const err = await files.uploadFile(parts()).catch((e: unknown) => e);
    const info = errorInfo(err);
    assert.equal(ConnectError.from(err).code, Code.ResourceExhausted);
    assert.equal(info?.reason, "TOO_LARGE");
    assert.equal(
      ConnectError.from(err).rawMessage,
      `The request message is ${info?.metadata["size"]} bytes, over this server's limit of ${limit} bytes per message (limits.max_receive_message_bytes) for /toolhost.files.v1.FileTools/UploadFile; send the data in smaller chunks.`,
    );
    assert.ok(Number(info?.metadata["size"]) > 2 * limit, JSON.stringify(info?.metadata));
    const line = await rpcLine(server, "/toolhost.files.v1.FileTools/UploadFile", 0);
    assert.equal(line["code"], "RESOURCE_EXHAUSTED");
    assert.equal(line["reason"], "TOO_LARGE");
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
  });

  it("over Connect (HTTP listener), an upload chunk over the limit gets the gRPC listener's error and a log line", async () => {
    const files = createClient(
      FileTools,
      createConnectTransport({ baseUrl: `http://${server.httpAddress}`, httpVersion: "1.1" }),
    );
    async function* parts() {
      yield { part: { case: "header" as const, value: { path: "up-http.bin" } } };
      yield { part: { case: "data" as const, value: new Uint8Array(2 * limit) } };
    }
    const err = ConnectError.from(await files.uploadFile(parts()).catch((e: unknown) => e));
    assert.equal(err.code, Code.ResourceExhausted);
    const info = errorInfo(err);
    assert.equal(info?.reason, "TOO_LARGE");
    assert.equal(info?.metadata["limit"], String(limit));
    assert.ok(Number(info?.metadata["size"]) > 2 * limit, JSON.stringify(info?.metadata));
    assert.equal(
      err.rawMessage,
      `The request message is ${info?.metadata["size"]} bytes, over this server's limit of ${limit} bytes per message (limits.max_receive_message_bytes) for /toolhost.files.v1.FileTools/UploadFile; send the data in smaller chunks.`,
    );
    const line = await rpcLine(server, "/toolhost.files.v1.FileTools/UploadFile", 1);
    assert.equal(line["code"], "RESOURCE_EXHAUSTED");
    assert.equal(line["reason"], "TOO_LARGE");
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
    assert.ok((await files.listTools({})).tools.length >= 4, "the client's next call works");
  });

  it("over Connect (HTTP listener): the same error, a log line, and the client's next call works", async () => {
    const files = createClient(
      FileTools,
      createConnectTransport({ baseUrl: `http://${server.httpAddress}`, httpVersion: "1.1" }),
    );
    // Four times the limit: connect-node's client is still sending when the answer comes. The
    // rest of the body is discarded and the connection kept; closing it then reset the client's
    // socket, which could lose the answer (INTERNAL, write EPIPE: 2 calls in 20 before).
    for (let i = 0; i < 8; i++) {
      const err = await files
        .writeFile({ path: "big.txt", content: { case: "text", value: "x".repeat(4 * limit) } })
        .catch((e: unknown) => e);
      assert.equal(ConnectError.from(err).code, Code.ResourceExhausted, `call ${i}: ${String(err)}`);
      assert.equal(errorInfo(err)?.reason, "TOO_LARGE");
      assert.ok((await files.listTools({})).tools.length >= 4, `call ${i}: the client's next call works`);
    }
    const line = await rpcLine(server, "/toolhost.files.v1.FileTools/WriteFile", 1);
    assert.equal(line["reason"], "TOO_LARGE");
    assert.match(String(line["peer"]), /^127\.0\.0\.1:\d+$/);
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
  });

  it("over HTTP/1.1 by hand: the answer to a body still arriving, then the next request on the same connection", async () => {
    const [host, port] = server.httpAddress!.split(":");
    const socket = connect(Number(port), host);
    socket.on("error", () => undefined);
    let reply = "";
    socket.on("data", (d: Buffer) => (reply += d.toString("latin1")));
    const body = Buffer.from(JSON.stringify({ path: "big.txt", text: "x".repeat(4 * limit) }));
    socket.write(
      `POST /toolhost.files.v1.FileTools/WriteFile HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 2 * limit));
    await sleep(200); // answered by now, with half the body still to come
    socket.write(body.subarray(2 * limit));
    await sleep(200);
    socket.write(
      `POST /toolhost.files.v1.FileTools/ListTools HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: after-drained-body\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
    for (let i = 0; i < 500 && !/"tools"/.test(reply); i++) await sleep(20);
    assert.match(reply, /^HTTP\/1\.1 429 /);
    assert.doesNotMatch(reply, /connection: close/i);
    const answer = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4, reply.indexOf("HTTP/1.1 200"))) as {
      code: string;
      details: { debug: { reason: string } }[];
    };
    assert.equal(answer.code, "resource_exhausted");
    assert.equal(answer.details[0]!.debug.reason, "TOO_LARGE");
    assert.match(reply, /HTTP\/1\.1 200 [\s\S]*"tools"/, "the next request on the connection is answered");
    socket.destroy();
    // The discarded rest of the refused body is not counted as the next call's bytes.
    const next = server.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r["request_id"] === "after-drained-body");
    assert.equal(next?.["code"], "OK");
    assert.ok(Number(next?.["bytes_in"]) < 1000, `bytes_in ${String(next?.["bytes_in"])}`);
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
  });
});

// A request refused for want of receive buffer is answered before its body is read; its body is
// discarded after the answer and the connection kept, and counted for no call.
describe("a request refused by the HTTP listener's receive budget", { timeout: 60_000 }, () => {
  let dir: string;
  let server: SpawnedServer;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-budget-"));
    await writeFile(
      join(dir, "config.yaml"),
      `limits:\n  max_receive_message_bytes: ${limit}\n  max_receive_buffer_bytes: ${limit + limit / 2}\n  max_receive_buffer_bytes_per_connection: ${limit}\n`,
    );
    server = await spawnServer(["--config", join(dir, "config.yaml"), "--root", dir, "--http-listen", "127.0.0.1:0"]);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("is answered QUOTA_EXCEEDED, then its connection serves the next request, whose bytes are its own", async () => {
    const [host, port] = server.httpAddress!.split(":");
    const head = (path: string, length: number, id: string) =>
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${id}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    // One body of the whole limit, held half-sent, takes most of the budget.
    const holder = connect(Number(port), host);
    holder.on("error", () => undefined);
    holder.write(head("/toolhost.files.v1.FileTools/WriteFile", limit, "holder") + "{");
    await sleep(100);
    const socket = connect(Number(port), host);
    socket.on("error", () => undefined);
    let reply = "";
    socket.on("data", (d: Buffer) => (reply += d.toString("latin1")));
    const body = JSON.stringify({ path: "refused.txt", text: "x".repeat(limit / 2) });
    socket.write(head("/toolhost.files.v1.FileTools/WriteFile", body.length, "refused") + body);
    for (let i = 0; i < 500 && !/QUOTA_EXCEEDED/.test(reply); i++) await sleep(20);
    assert.match(reply, /^HTTP\/1\.1 429 [\s\S]*QUOTA_EXCEEDED/);
    assert.doesNotMatch(reply, /connection: close/i);
    holder.destroy();
    await sleep(100);
    socket.write(head("/toolhost.files.v1.FileTools/ListTools", 2, "after-refusal") + "{}");
    for (let i = 0; i < 500 && !/"tools"/.test(reply); i++) await sleep(20);
    assert.match(reply, /HTTP\/1\.1 200 [\s\S]*"tools"/);
    socket.destroy();
    let next: Record<string, unknown> | undefined;
    for (let i = 0; i < 500 && next === undefined; i++, await sleep(20)) {
      next = server.lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((r) => r["request_id"] === "after-refusal");
    }
    assert.equal(next?.["code"], "OK");
    assert.ok(Number(next?.["bytes_in"]) < 1000, `bytes_in ${String(next?.["bytes_in"])}`);
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
  });
});
