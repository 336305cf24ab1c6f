// The HTTP listener reads a one-message call's body itself (policy/request-body.ts) and refuses one
// over limits.max_receive_message_bytes as TOO_LARGE in the caller's protocol, whether its size
// is declared, announced by its envelope, or only seen as the body grows (no content-length).
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const limit = 32 * 1024;
const writeFilePath = "/toolhost.files.v1.FileTools/WriteFile";

/** chunked is a request body sent without content-length, in 4 KiB pieces. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 4096));
      at += 4096;
    },
  });
}

/** envelope is one gRPC-Web message head announcing `announced` bytes, followed by `body`. */
function envelope(announced: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.byteLength);
  new DataView(out.buffer).setUint32(1, announced);
  out.set(body, 5);
  return out;
}

const reasonOf = (error: ConnectError | undefined) => error?.findDetails(ErrorInfoSchema)[0];

describe("a one-message HTTP request over the receive limit", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ http: true, limits: { maxReceiveMessageBytes: limit } });
  });
  after(() => server.close());

  const post = (contentType: string, body: Uint8Array | ReadableStream<Uint8Array>) =>
    fetch(`http://${server.httpAddress}${writeFilePath}`, {
      method: "POST",
      headers: { "content-type": contentType, "x-request-id": "oversize-1" },
      body,
      duplex: "half",
    } as RequestInit);

  it("Connect JSON without content-length: 429 TOO_LARGE once the body grows past the limit", async () => {
    const res = await post(
      "application/json",
      chunked(new TextEncoder().encode(JSON.stringify({ path: "big.txt", text: "x".repeat(4 * limit) }))),
    );
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("x-request-id"), "oversize-1");
    const error = errorFromJsonBytes(
      new Uint8Array(await res.arrayBuffer()),
      undefined,
      new ConnectError("not JSON", Code.Internal),
    );
    assert.deepEqual(
      { code: error.code, reason: reasonOf(error)?.reason, limit: reasonOf(error)?.metadata["limit"] },
      { code: Code.ResourceExhausted, reason: "TOO_LARGE", limit: String(limit) },
    );
    assert.deepEqual(await readdir(server.root), []);
  });

  it("gRPC-Web: TOO_LARGE with the announced size, from the envelope head, before the body", async () => {
    const res = await post("application/grpc-web+proto", chunked(envelope(10 * limit, new Uint8Array(100))));
    assert.equal(res.status, 200);
    const error = findTrailerError(res.headers);
    assert.deepEqual(
      { code: error?.code, reason: reasonOf(error)?.reason, size: reasonOf(error)?.metadata["size"] },
      { code: Code.ResourceExhausted, reason: "TOO_LARGE", size: String(10 * limit) },
    );
    assert.deepEqual(await readdir(server.root), []);
  });

  it("gRPC-Web text: TOO_LARGE with the size its base64 envelope head announces", async () => {
    const body = new TextEncoder().encode(
      Buffer.from(envelope(2 * limit, new Uint8Array(2 * limit))).toString("base64"),
    );
    const res = await post("application/grpc-web-text", chunked(body));
    assert.equal(res.status, 200);
    const error = findTrailerError(res.headers);
    assert.deepEqual(
      { code: error?.code, reason: reasonOf(error)?.reason, size: reasonOf(error)?.metadata["size"] },
      { code: Code.ResourceExhausted, reason: "TOO_LARGE", size: String(2 * limit) },
    );
    assert.deepEqual(await readdir(server.root), []);
  });

  it("a body within the limit is served", async () => {
    const res = await fetch(`http://${server.httpAddress}/toolhost.files.v1.FileTools/ListTools`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunked(new TextEncoder().encode("{}")),
      duplex: "half",
    } as RequestInit);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /"tools"/);
  });
});
