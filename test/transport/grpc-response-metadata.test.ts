// The gRPC host sends the response headers and trailers a handler sets on its Connect
// HandlerContext: headers with the response headers (unary and server-stream calls), trailers
// with the status, on success and on error, as the HTTP listener does.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError, type CallOptions, type HandlerContext } from "@connectrpc/connect";
import type { GrpcHost } from "../../src/transport/grpc-host.js";
import { echoClient, startEchoHost, type EchoClient, type Str } from "../support/echo-host.js";

function setBoth(ctx: HandlerContext): void {
  ctx.responseHeader.append("x-custom-header", "h1");
  ctx.responseHeader.append("x-bin-header-bin", Buffer.from([0, 1, 2]).toString("base64"));
  ctx.responseTrailer.append("x-custom-trailer", "t1");
}

const impl = {
  unary(req: Str, ctx: HandlerContext) {
    setBoth(ctx);
    if (req.value === "fail") throw new ConnectError("refused on purpose", Code.FailedPrecondition);
    return { value: req.value };
  },
  async clientStream(reqs: AsyncIterable<Str>, ctx: HandlerContext) {
    for await (const _ of reqs) ctx.responseTrailer.append("x-seen", "1");
    return { value: "done" };
  },
  async *serverStream(req: Str, ctx: HandlerContext) {
    setBoth(ctx);
    yield { value: "one" };
    if (req.value === "fail") throw new ConnectError("refused on purpose", Code.FailedPrecondition);
  },
};

async function* two(): AsyncIterable<Str> {
  yield { value: "a" };
  yield { value: "b" };
}

describe("gRPC host: handler-set response headers and trailers", () => {
  let host: GrpcHost;
  let client: EchoClient;

  before(async () => {
    host = await startEchoHost(impl);
    client = echoClient(host);
  });
  after(() => host.close(100));

  /** seen collects the headers and trailers a call's client received. */
  function seen(): { header: Headers; trailer: Headers; options: CallOptions } {
    const out = { header: new Headers(), trailer: new Headers(), options: {} as CallOptions };
    out.options = { onHeader: (h) => (out.header = h), onTrailer: (t) => (out.trailer = t) };
    return out;
  }

  it("sends them on a unary success, beside x-request-id", async () => {
    const s = seen();
    await client.unary({ value: "ok" }, s.options);
    assert.equal(s.header.get("x-custom-header"), "h1");
    assert.equal(s.header.get("x-bin-header-bin"), Buffer.from([0, 1, 2]).toString("base64"));
    assert.ok(s.header.get("x-request-id"));
    assert.equal(s.trailer.get("x-custom-trailer"), "t1");
  });

  it("sends them on a unary error, the trailers beside the status details", async () => {
    const s = seen();
    await assert.rejects(client.unary({ value: "fail" }, s.options), (err: ConnectError) => {
      assert.equal(err.code, Code.FailedPrecondition);
      // Connect's client hands an error's headers and trailers over together, as its metadata.
      assert.equal(err.metadata.get("x-custom-header"), "h1");
      assert.equal(err.metadata.get("x-custom-trailer"), "t1");
      return true;
    });
  });

  it("sends them on a server stream, at the end and after an error", async () => {
    for (const value of ["ok", "fail"]) {
      const s = seen();
      const got: string[] = [];
      try {
        for await (const m of client.serverStream({ value }, s.options)) got.push(m.value);
      } catch (err) {
        assert.equal(value, "fail");
        assert.equal((err as ConnectError).code, Code.FailedPrecondition);
        assert.equal((err as ConnectError).metadata.get("x-custom-trailer"), "t1");
      }
      assert.deepEqual(got, ["one"]);
      assert.equal(s.header.get("x-custom-header"), "h1", value);
      if (value === "ok") assert.equal(s.trailer.get("x-custom-trailer"), "t1");
    }
  });

  it("sends a client stream's trailers set while it read", async () => {
    const s = seen();
    assert.equal((await client.clientStream(two(), s.options)).value, "done");
    assert.equal(s.trailer.get("x-seen"), "1, 1");
  });
});
