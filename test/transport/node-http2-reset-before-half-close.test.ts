// A unary request is the message and the half-close: a client that sends its whole message and
// then resets the stream, without ever half-closing it, has cancelled the call, and the handler
// is not run (a WriteFile so cut is not written), whatever the reset's error code.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { StringValueSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { CallRecord } from "../../src/transport/call-record.js";
import type { GrpcHost } from "../../src/transport/grpc-host.js";
import { RawH2Socket, frame } from "../support/raw-grpc.js";
import { startEchoHost } from "../support/echo-host.js";
import type { echoService } from "../support/echo-service.js";

const unary = "/toolhost.testing.v1.Echo/Unary";

describe("a unary request reset before its half-close (node:http2 host)", () => {
  let host: GrpcHost;
  const ran: string[] = [];
  const records = new Map<string, (record: CallRecord) => void>();
  before(async () => {
    const impl = {
      unary(request: { value: string }) {
        ran.push(request.value);
        return create(StringValueSchema, { value: request.value });
      },
    } as unknown as ServiceImpl<typeof echoService>;
    host = await startEchoHost(impl, (record) => records.get(record.requestId)?.(record));
  });
  after(() => host.close(100));

  for (const [name, code] of [
    ["CANCEL", 8],
    ["NO_ERROR", 0],
  ] as const) {
    it(`does not run the handler of a request reset with ${name} after its whole message`, async () => {
      const requestId = `reset-${name}`;
      const ended = new Promise<CallRecord>((resolve) => records.set(requestId, resolve));
      const raw = await RawH2Socket.open(host.address);
      try {
        const id = raw.request(unary, { headers: { "x-request-id": requestId } });
        raw.data(id, frame(toBinary(StringValueSchema, create(StringValueSchema, { value: name }))));
        raw.reset(id, code);
        const record = await ended;
        assert.equal(record.code, 1, "CANCELLED");
        assert.deepEqual(ran, []);
      } finally {
        raw.close();
      }
    });
  }

  it("runs the handler of the same request half-closed", async () => {
    const requestId = "half-closed";
    const ended = new Promise<CallRecord>((resolve) => records.set(requestId, resolve));
    const raw = await RawH2Socket.open(host.address);
    try {
      const id = raw.request(unary, { headers: { "x-request-id": requestId } });
      raw.data(id, frame(toBinary(StringValueSchema, create(StringValueSchema, { value: "whole" }))), true);
      assert.equal((await ended).code, 0);
      assert.deepEqual(ran, ["whole"]);
    } finally {
      raw.close();
    }
  });
});
