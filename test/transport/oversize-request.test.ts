import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
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
    const lines = server.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r["msg"] === "rpc" && r["method"] === method);
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
    const err = await files.writeFile({ path: "big.txt", content: { case: "text", value: big } }).catch((e: unknown) => e);
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
    const files = createClient(FileTools, createConnectTransport({ baseUrl: `http://${server.httpAddress}`, httpVersion: "1.1" }));
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
    const files = createClient(FileTools, createConnectTransport({ baseUrl: `http://${server.httpAddress}`, httpVersion: "1.1" }));
    // Just over the limit. The server answers before reading the body and closes the connection;
    // body bytes the client is still sending then reset it, which can drop the answer before the
    // client has read it (INTERNAL: two fresh-clone CI runs failed so with twice the limit, whose
    // one write the kernel split). Open: the server would have to drain the rest of a refused
    // body before closing; two ways tried on 2026-12-01 broke connect-node's HTTP/1.1 client.
    const err = await files.writeFile({ path: "big.txt", content: { case: "text", value: "x".repeat(limit + 1024) } }).catch((e: unknown) => e);
    assert.equal(ConnectError.from(err).code, Code.ResourceExhausted);
    assert.equal(errorInfo(err)?.reason, "TOO_LARGE");
    const line = await rpcLine(server, "/toolhost.files.v1.FileTools/WriteFile", 1);
    assert.equal(line["reason"], "TOO_LARGE");
    assert.match(String(line["peer"]), /^127\.0\.0\.1:\d+$/);
    assert.deepEqual((await readdir(dir)).sort(), ["config.yaml"]);
    assert.ok((await files.listTools({})).tools.length >= 4);
  });
});
