// A call still unanswered at its deadline ends DEADLINE_EXCEEDED, and its answer still carries
// x-request-id: the client needs it to find the call in the server's log. The node:http2 host
// answers such a call trailers-only, the id beside the status. (Found by review on the grpc-js
// host, which ended such calls itself with no headers of toolhost's.)
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { once } from "node:events";
import type { IncomingHttpHeaders } from "node:http2";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { defaultLimits } from "../../src/config/config.js";
import type { GrpcHost } from "../../src/transport/grpc-host.js";
import { startNodeHttp2Host } from "../../src/transport/node-http2/node-http2-host.js";
import { frame, RawGrpcConnection } from "../support/raw-grpc.js";

const deadlineExceeded = 4;
let server: GrpcHost;
let address = "";

/**
 * slow waits up to 3 s, or until the call's signal ends it, and then fails as a handler does with
 * its signal's reason: a handler that returned instead could answer OK at the deadline, ahead of
 * the host's own DEADLINE_EXCEEDED, on a loaded machine.
 */
async function slow(signal: AbortSignal): Promise<void> {
  await sleep(3000, undefined, { signal }).catch(() => undefined);
  signal.throwIfAborted();
}

before(async () => {
  const impl = {
    async statFile(_req: unknown, ctx: { signal: AbortSignal }) {
      await slow(ctx.signal);
      return {};
    },
    // biome-ignore lint/correctness/useYield: a stream that answers nothing before its deadline
    async *readFile(_req: unknown, ctx: { signal: AbortSignal }) {
      await slow(ctx.signal);
    },
  };
  server = await startNodeHttp2Host(
    "127.0.0.1:0",
    [{ service: FileTools, impl: impl as never }],
    defaultLimits,
    () => undefined,
  );
  address = server.address;
});

after(() => server.close(0));

/**
 * callPastDeadline calls `method` with a 300 ms grpc-timeout over a raw HTTP/2 stream and returns
 * the response headers and trailers. The client keeps no deadline of its own, so what it gets is
 * what the server sent when its deadline passed, however loaded the machine (a client-side
 * deadline in this same event loop could fire before the headers sent 5 ms ahead were read).
 */
async function callPastDeadline(
  method: string,
  requestId: string,
): Promise<{ headers: IncomingHttpHeaders; trailers: IncomingHttpHeaders }> {
  const connection = await RawGrpcConnection.open(address);
  try {
    const stream = connection.start(`/toolhost.files.v1.FileTools/${method}`, {
      headers: { "grpc-timeout": "300m", "x-request-id": requestId },
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    stream.on("response", (h) => (headers = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.resume();
    const closed = once(stream, "close");
    stream.end(frame(new Uint8Array(0)));
    await closed;
    return { headers, trailers };
  } finally {
    connection.close();
  }
}

describe("request id on a call that runs past its deadline", { timeout: 20_000 }, () => {
  for (const [kind, method] of [
    ["a unary call's client", "StatFile"],
    ["a server stream's client, the deadline passing before the first message,", "ReadFile"],
  ] as const) {
    it(`${kind} gets x-request-id with its DEADLINE_EXCEEDED`, async () => {
      const id = `deadline-${method}`;
      const { headers, trailers } = await callPastDeadline(method, id);
      assert.equal(headers["x-request-id"], id, `x-request-id missing (headers: ${JSON.stringify(headers)})`);
      // Trailers-only (the status in the one HEADERS frame) or headers then trailers: either way
      // the id came with the answer.
      const status = trailers["grpc-status"] ?? headers["grpc-status"];
      assert.equal(Number(status), deadlineExceeded, JSON.stringify({ headers, trailers }));
    });
  }
});
