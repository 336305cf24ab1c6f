// The response headers (x-request-id) leave with the first message or the status the adapter
// sends; a call still unanswered shortly before its deadline sends them then, because at the
// deadline grpc-js ends the call itself (DEADLINE_EXCEEDED) with no headers of ours, and the
// client would lose the id it needs to find the call in the server's log. (Found by review:
// without CallContext.sendHeaderBefore both cases below fail.)
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { once } from "node:events";
import type { IncomingHttpHeaders } from "node:http2";
import { Server, ServerCredentials, status } from "@grpc/grpc-js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { grpcServiceFromImpl } from "../../src/transport/grpc-js/grpc-service-from-impl.js";
import { sendPreframed } from "../../src/transport/grpc-js/preframed-interceptor.js";
import { frame, RawGrpcConnection } from "../support/raw-grpc.js";

let server: Server;
let address = "";
const shutdown = new AbortController();

/**
 * slow waits up to 3 s, or until the call's signal ends it, and then fails as a handler does with
 * its signal's reason: a handler that returned instead could answer OK at the deadline, ahead of
 * grpc-js's own DEADLINE_EXCEEDED, on a loaded machine.
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
  const { definition, implementation } = grpcServiceFromImpl(FileTools, impl as never, {
    shutdownSignal: shutdown.signal,
    maxPendingBytes: 1 << 20,
    onCallEnd: () => undefined,
  });
  server = new Server({ interceptors: [sendPreframed] });
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  address = `127.0.0.1:${port}`;
});

after(() => {
  shutdown.abort();
  server.forceShutdown();
});

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
    it(`${kind} gets x-request-id in the headers, then DEADLINE_EXCEEDED`, async () => {
      const id = `deadline-${method}`;
      const { headers, trailers } = await callPastDeadline(method, id);
      assert.equal(headers["x-request-id"], id, `x-request-id missing (headers: ${JSON.stringify(headers)})`);
      assert.equal(headers["grpc-status"], undefined, "a trailers-only answer: no headers were sent ahead");
      assert.equal(Number(trailers["grpc-status"]), status.DEADLINE_EXCEEDED, JSON.stringify(trailers));
    });
  }
});
