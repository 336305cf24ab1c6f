// grpc.health.v1 List takes exactly one request message, as Check and Watch do: open without a
// token, it is held to the same single-request bounds (one message, the receive timeout until
// its half-close), and a List without its message is refused as Check is.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RawGrpcConnection } from "../support/raw-grpc.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

describe("health List as a single-request method", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("refuses a List without its request message with INVALID_ARGUMENT, as Check", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      for (const method of ["Check", "List"]) {
        const r = await c.call(`/grpc.health.v1.Health/${method}`, new Uint8Array());
        assert.equal(r.grpcStatus, 3, method);
        assert.match(r.grpcMessage ?? "", /^The request message is missing: the stream half-closed before sending one/);
        assert.equal(r.messages.length, 0);
      }
    } finally {
      c.close();
    }
  });
});
