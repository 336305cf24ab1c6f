import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createClient } from "../../clients/ts/src/create-client.js";
import { defaultReadMaxBytes } from "../../clients/ts/src/transport/read-max-bytes.js";
import { ReadFileResponseSchema } from "../../gen/ts/toolhost/files/v1/read_pb.js";

// Issue 27 #5: a server that announces a huge message must not make the client hold it. The
// servers here are real (node:http2 for gRPC, node:http for Connect): each answers every call
// with a message header announcing 2 GiB, then trickles a byte every 20 ms for as long as the
// stream stays open. The client must refuse at the header, as grpc-js does: ResourceExhausted,
// and the stream reset, so that nothing more of the message is taken.

const announced = 2 ** 31;
const trickleMs = 20;
/** How many bytes a server may trickle before the call counts as not refused at once (~2 s). */
const tricklesAllowed = 100;

/** messageHeader is gRPC's (and Connect's) 5-byte prefix: flags 0, then the 32-bit length. */
function messageHeader(length: number): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(length, 1);
  return header;
}

/** Trickle records what a server sent on one call, and how the call ended on its side. */
interface Trickle {
  bytes: number;
  closed: Promise<void>;
}

/** trickle writes the 2 GiB header, then one byte per tick until the stream closes or the allowance is spent. */
function trickle(write: (b: Buffer) => void, onClose: (f: () => void) => void, end: () => void): Trickle {
  const t: Trickle = { bytes: 0, closed: Promise.resolve() };
  let timer: NodeJS.Timeout | undefined;
  t.closed = new Promise<void>((resolve) =>
    onClose(() => {
      clearInterval(timer);
      resolve();
    }),
  );
  write(messageHeader(announced));
  timer = setInterval(() => {
    if (t.bytes >= tricklesAllowed) {
      clearInterval(timer);
      end();
      return;
    }
    t.bytes++;
    write(Buffer.of(7));
  }, trickleMs);
  return t;
}

/** outcome is how `call` ended within a generous hang guard: its ConnectError, or "still running". */
async function outcome(call: Promise<unknown>): Promise<ConnectError | string> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still running"), 10_000)));
  try {
    return await Promise.race([
      call.then(
        () => "succeeded",
        (e: unknown) => (e instanceof ConnectError ? e : `not a ConnectError: ${String(e)}`),
      ),
      guard,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function drain(messages: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of messages);
}

describe("@toolhost/client refuses a response message over its receive limit", { timeout: 60_000 }, () => {
  let grpcServer: http2.Http2Server;
  let connectServer: http.Server;
  const grpcCalls: Trickle[] = [];
  const connectCalls: Trickle[] = [];
  let grpcAddress: string;
  let connectAddress: string;
  /** When set, the gRPC server answers with a real 2 MiB message, sent whole, instead. */
  let sendWhole = false;
  /** A real ReadFileResponse with 2 MiB of data, sent whole by /big paths. */
  const twoMiB = Buffer.from(
    toBinary(
      ReadFileResponseSchema,
      create(ReadFileResponseSchema, { part: { case: "data", value: Buffer.alloc(2 * 1024 * 1024, 5) } }),
    ),
  );

  before(async () => {
    grpcServer = http2.createServer();
    grpcServer.on("stream", (stream) => {
      stream.on("error", () => {});
      stream.resume(); // the request
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      if (sendWhole) {
        stream.end(Buffer.concat([messageHeader(twoMiB.length), twoMiB]));
        return;
      }
      grpcCalls.push(
        trickle(
          (b) => stream.write(b),
          (f) => stream.once("close", f),
          () => stream.end(),
        ),
      );
    });
    await new Promise<void>((resolve) => grpcServer.listen(0, "127.0.0.1", resolve));
    grpcAddress = `127.0.0.1:${(grpcServer.address() as AddressInfo).port}`;

    connectServer = http.createServer((req, res) => {
      req.resume();
      const streaming = String(req.headers["content-type"]).startsWith("application/connect+");
      if (!streaming) {
        // A unary Connect answer is the message itself, its length in content-length.
        res.writeHead(200, { "content-type": "application/proto", "content-length": String(announced) });
      } else {
        res.writeHead(200, { "content-type": "application/connect+proto" });
      }
      res.on("error", () => {});
      connectCalls.push(
        trickle(
          (b) => res.write(streaming ? b : b.subarray(0, 1)),
          (f) => res.once("close", f),
          () => res.destroy(),
        ),
      );
    });
    await new Promise<void>((resolve) => connectServer.listen(0, "127.0.0.1", resolve));
    connectAddress = `127.0.0.1:${(connectServer.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => grpcServer.close(resolve));
    connectServer.closeAllConnections();
    await new Promise((resolve) => connectServer.close(resolve));
  });

  /** refusedAtOnce checks that a call ended ResourceExhausted naming both sizes, and that the server's stream was closed soon after the header. */
  async function refusedAtOnce(call: Promise<unknown>, calls: Trickle[], limit: number): Promise<void> {
    const before = calls.length;
    const result = await outcome(call);
    assert.ok(result instanceof ConnectError, `the call was not refused: ${String(result)}`);
    assert.equal(result.code, Code.ResourceExhausted, result.message);
    assert.match(result.message, new RegExp(`${announced}.*${limit}`));
    const served = calls.slice(before);
    assert.equal(served.length, 1, "the server saw one call");
    await served[0]!.closed;
    assert.ok(
      served[0]!.bytes < tricklesAllowed,
      `the client took the message's bytes on (${served[0]!.bytes} trickled) instead of closing the stream`,
    );
  }

  it("gRPC: unary and streamed calls fail with ResourceExhausted at the header, by default at 32 MiB", async () => {
    const { files, close } = createClient(grpcAddress);
    try {
      await refusedAtOnce(files.statFile({ path: "a" }), grpcCalls, defaultReadMaxBytes);
      await refusedAtOnce(drain(files.readFile({ path: "a" })), grpcCalls, defaultReadMaxBytes);
    } finally {
      close();
    }
  });

  it("gRPC: the limit set in createClient applies, lower or higher, and a message within it arrives whole", async () => {
    const low = createClient(grpcAddress, { readMaxBytes: 1024 * 1024 });
    const high = createClient(grpcAddress, { readMaxBytes: 4 * 1024 * 1024 });
    try {
      await refusedAtOnce(drain(low.files.readFile({ path: "a" })), grpcCalls, 1024 * 1024);
      sendWhole = true;
      const refused = await outcome(drain(low.files.readFile({ path: "a" })));
      assert.ok(refused instanceof ConnectError && refused.code === Code.ResourceExhausted, String(refused));
      let data = 0;
      for await (const m of high.files.readFile({ path: "a" })) if (m.part.case === "data") data += m.part.value.length;
      assert.equal(data, 2 * 1024 * 1024);
    } finally {
      sendWhole = false;
      low.close();
      high.close();
    }
  });

  it("Connect: unary (content-length) and streamed calls fail with ResourceExhausted before the body is read", async () => {
    const { files } = createClient(connectAddress, { protocol: "connect" });
    await refusedAtOnce(files.statFile({ path: "a" }), connectCalls, defaultReadMaxBytes);
    await refusedAtOnce(drain(files.readFile({ path: "a" })), connectCalls, defaultReadMaxBytes);
  });

  it("refuses a limit that is not a whole number from 1 to 2^32 - 1, with a RangeError", () => {
    for (const readMaxBytes of [0, -1, 1.5, 2 ** 32, Number.NaN]) {
      assert.throws(() => createClient(grpcAddress, { readMaxBytes }), RangeError, String(readMaxBytes));
    }
    assert.doesNotThrow(() => createClient(grpcAddress, { readMaxBytes: 2 ** 32 - 1 }).close());
  });
});
