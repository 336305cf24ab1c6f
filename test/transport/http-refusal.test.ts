// writeRefusal answers an early refusal in the caller's protocol (issue 28): a streaming Connect
// client must get HTTP 200 and an end-stream envelope, or connect-es reads only "HTTP 401".
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { createEndStreamSerialization, endStreamFlag, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ToolhostError } from "../../src/errors/toolhost-error.js";
import { toConnectError } from "../../src/service/error-mapping.js";
import { writeRefusal } from "../../src/transport/http/http-refusal.js";

const refusal = () =>
  toConnectError(new ToolhostError("UNAUTHENTICATED", "no token; send authorization: Bearer TOKEN."));
const reasonOf = (error: ConnectError | undefined) => error?.findDetails(ErrorInfoSchema)[0]?.reason;

describe("writeRefusal", () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((req, res) =>
      writeRefusal(req, res, refusal(), { close: req.url === "/close", headers: { "retry-after": "1" } }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (contentType: string, extra: Record<string, string> = {}, url = "/keep") =>
    fetch(`${base}${url}`, { method: "POST", headers: { "content-type": contentType, ...extra }, body: "{}" });

  it("answers gRPC-Web trailers-only, with the status details", async () => {
    for (const contentType of ["application/grpc-web+proto", "application/grpc-web-text"]) {
      const res = await post(contentType);
      assert.equal(res.status, 200);
      assert.equal(
        res.headers.get("content-type"),
        contentType.includes("text") ? "application/grpc-web-text+proto" : "application/grpc-web+proto",
      );
      assert.equal((await res.arrayBuffer()).byteLength, 0);
      const error = findTrailerError(res.headers);
      assert.deepEqual(
        { code: error?.code, reason: reasonOf(error) },
        { code: Code.Unauthenticated, reason: "UNAUTHENTICATED" },
      );
    }
  });

  it("answers a Connect stream with HTTP 200 and one end-stream envelope holding the error", async () => {
    for (const [contentType, answered] of <[string, string][]>[
      ["application/connect+json", "application/connect+json"],
      ["application/connect+proto", "application/connect+proto"],
    ]) {
      const res = await post(contentType);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), answered);
      const body = new Uint8Array(await res.arrayBuffer());
      assert.equal(body[0], endStreamFlag);
      assert.equal(new DataView(body.buffer).getUint32(1), body.byteLength - 5);
      const end = createEndStreamSerialization(undefined).parse(body.subarray(5));
      assert.deepEqual(
        { code: end.error?.code, reason: reasonOf(end.error) },
        { code: Code.Unauthenticated, reason: "UNAUTHENTICATED" },
      );
    }
  });

  it("answers Connect unary and plain JSON with the code's HTTP status and the error JSON", async () => {
    for (const contentType of ["application/json", "application/proto", ""]) {
      const res = await post(contentType);
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(res.headers.get("retry-after"), "1");
      const error = errorFromJsonBytes(
        new Uint8Array(await res.arrayBuffer()),
        undefined,
        new ConnectError("not JSON", Code.Internal),
      );
      assert.deepEqual(
        { code: error.code, reason: reasonOf(error) },
        { code: Code.Unauthenticated, reason: "UNAUTHENTICATED" },
      );
    }
  });

  it("echoes a sane x-request-id, replaces any other, and closes the connection only when asked", async () => {
    assert.equal((await post("application/json", { "x-request-id": "req-42" })).headers.get("x-request-id"), "req-42");
    for (const sent of ["has space", "x".repeat(129)]) {
      const id = (await post("application/json", { "x-request-id": sent })).headers.get("x-request-id");
      assert.match(id ?? "", /^[0-9a-f-]{36}$/, sent);
    }
    assert.match((await post("application/json")).headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    assert.equal((await post("application/json", {}, "/close")).headers.get("connection"), "close");
    assert.notEqual((await post("application/json", {}, "/keep")).headers.get("connection"), "close");
  });
});
