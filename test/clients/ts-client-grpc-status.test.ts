import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createClient } from "../../clients/ts/src/create-client.js";
import { StatFileResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";

// Where the client takes a call's gRPC status from (gRPC over HTTP/2, "Responses"): the trailer,
// or the header only in the trailers-only form (a HEADERS frame that ends the stream). A status
// in a header followed by a body or a trailer is not the call's status. The server is a real
// node:http2 one answering each call as its path says.

const statReply = Buffer.from(toBinary(StatFileResponseSchema, create(StatFileResponseSchema, { size: 12n })));
const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, statReply.length]), statReply]);

describe("@toolhost/client takes a call's status from the trailer, or the header only when trailers-only", {
  timeout: 30_000,
}, () => {
  let server: http2.Http2Server;
  let address: string;
  /** What the server does with the next call. */
  let answer: (stream: http2.ServerHttp2Stream) => void = () => {};

  before(async () => {
    server = http2.createServer();
    server.on("stream", (stream) => {
      stream.on("error", () => {});
      stream.resume();
      answer(stream);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  async function outcome(): Promise<string> {
    const { files, close } = createClient(address);
    try {
      const reply = await files.statFile({ path: "a" }, { timeoutMs: 10_000 });
      return `ok size=${reply.size}`;
    } catch (err) {
      assert.ok(err instanceof ConnectError, String(err));
      return Code[err.code];
    } finally {
      close();
    }
  }

  it("trailers-only: the header's status is the call's", async () => {
    answer = (stream) =>
      stream.respond(
        { ":status": 200, "content-type": "application/grpc", "grpc-status": "9", "grpc-message": "no" },
        { endStream: true },
      );
    assert.equal(await outcome(), "FailedPrecondition");
  });

  it("a status in the header followed by a body and no trailer: the status is missing (Internal)", async () => {
    answer = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "9" });
      stream.end(framed);
    };
    assert.equal(await outcome(), "Internal");
  });

  it("a status in the header and another in the trailer: the trailer's", async () => {
    answer = (stream) => {
      stream.respond(
        { ":status": 200, "content-type": "application/grpc", "grpc-status": "8" },
        { waitForTrailers: true },
      );
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "9" }));
      stream.end();
    };
    assert.equal(await outcome(), "FailedPrecondition");
    answer = (stream) => {
      stream.respond(
        { ":status": 200, "content-type": "application/grpc", "grpc-status": "8" },
        { waitForTrailers: true },
      );
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(framed);
    };
    assert.equal(await outcome(), "ok size=12");
  });
});
