// The node:http2 gRPC host runs a Connect ServiceImpl over gRPC: every method kind, errors with
// their details (and without an unexpected error's text), backpressure, and a cancel or a
// deadline reaching the handler as its aborted signal. (Once the grpc-js adapter's tests.)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { connect as connectHttp2 } from "node:http2";
import { create, type DescService, toBinary } from "@bufbuild/protobuf";
import { StringValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { Client as GrpcClient, credentials, status as grpcStatus, type ServiceError } from "@grpc/grpc-js";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ToolhostError } from "../../src/errors/toolhost-error.js";
import { withErrorMapping } from "../../src/service/with-error-mapping.js";
import type { CallRecord } from "../../src/transport/call-record.js";
import type { GrpcHost } from "../../src/transport/grpc-host.js";
import { collect, frame, RawGrpcConnection } from "../support/raw-grpc.js";
import { echoClient, startEchoHost, type EchoClient, type Str } from "../support/echo-host.js";
import { echoService } from "../support/echo-service.js";

/** What the handlers saw, for the assertions. */
const seen = {
  produced: 0,
  signals: [] as AbortSignal[],
  clientStreamOutcome: "" as string,
  /** Ends the pending "ignore-signal" calls (they do not look at their signal). */
  release: [] as (() => void)[],
};

/** ignoreSignal waits until the test releases it (seen.release), its signal unheeded. */
function ignoreSignal(): Promise<void> {
  return new Promise<void>((resolve) => seen.release.push(resolve));
}

const chunk = "x".repeat(64 * 1024);

const impl = {
  unary(req: Str, ctx: HandlerContext) {
    if (req.value === "missing") {
      throw new ToolhostError("NOT_FOUND", "File 'missing' not found; list the directory to see what exists.", {
        path: "missing",
      });
    }
    if (req.value === "crash") {
      throw new Error("EIO: i/o error, open '/secret/outside/roots'");
    }
    if (req.value === "look-late") {
      // Asks for its signal only after the client has given up (cancel or deadline).
      return sleep(400).then(() => {
        seen.signals.push(ctx.signal);
        return { value: "late" };
      });
    }
    if (req.value === "ignore-signal") {
      return ignoreSignal().then(() => ({ value: "too late" }));
    }
    if (req.value === "wait") {
      seen.signals.push(ctx.signal);
      return new Promise<Str>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    }
    return { value: req.value.toUpperCase() };
  },
  async clientStream(reqs: AsyncIterable<Str>) {
    const parts: string[] = [];
    try {
      for await (const r of reqs) parts.push(r.value);
    } catch (err) {
      seen.clientStreamOutcome = `aborted after ${parts.length}`;
      throw err;
    }
    seen.clientStreamOutcome = `committed ${parts.length}`;
    return { value: parts.join("+") };
  },
  async *serverStream(req: Str, ctx: HandlerContext) {
    if (req.value === "endless") {
      seen.produced = 0;
      for (let i = 0; i < 10_000; i++) {
        seen.produced++;
        yield { value: chunk };
      }
      return;
    }
    if (req.value === "hang") {
      seen.signals.push(ctx.signal);
      yield { value: "first" };
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return;
    }
    if (req.value === "ignore-signal") {
      yield { value: "first" };
      await ignoreSignal();
      yield { value: "too late" };
      return;
    }
    if (req.value === "fail-midway") {
      yield { value: "one" };
      throw new ToolhostError("TOO_LARGE", "File 'big.txt' is too large: 20 bytes, the limit is 10 bytes.", {
        size: "20",
      });
    }
    for (let i = 0; i < Number(req.value); i++) yield { value: String(i) };
  },
  async *bidi(reqs: AsyncIterable<Str>) {
    for await (const r of reqs) yield { value: `echo:${r.value}` };
  },
};

async function* messages(values: string[], pauseAfter?: () => Promise<void>): AsyncIterable<Str> {
  for (const value of values) yield { value };
  await pauseAfter?.();
}

describe("the gRPC host serves a ServiceImpl", () => {
  let host: GrpcHost;
  let client: EchoClient;
  const records: CallRecord[] = [];
  const recordWaiters: (() => void)[] = [];
  /** recordOf waits for the CallRecord of the call with x-request-id `id`. */
  async function recordOf(id: string): Promise<CallRecord> {
    for (;;) {
      const found = records.find((r) => r.requestId === id);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => recordWaiters.push(resolve));
    }
  }

  before(async () => {
    host = await startEchoHost(withErrorMapping(echoService, impl as unknown as ServiceImpl<DescService>), (r) => {
      records.push(r);
      for (const wake of recordWaiters.splice(0)) wake();
    });
    client = echoClient(host);
  });
  after(() => host.close(100));

  it("serves a unary call", async () => {
    assert.deepEqual((await client.unary({ value: "abc" })).value, "ABC");
  });

  it("serves a client stream, committing only on half-close", async () => {
    assert.equal((await client.clientStream(messages(["a", "b", "c"]))).value, "a+b+c");
    assert.equal(seen.clientStreamOutcome, "committed 3");
  });

  it("serves a server stream in order", async () => {
    const got: string[] = [];
    for await (const m of client.serverStream({ value: "5" })) got.push(m.value);
    assert.deepEqual(got, ["0", "1", "2", "3", "4"]);
  });

  it("serves a bidi stream", async () => {
    const got: string[] = [];
    for await (const m of client.bidi(messages(["x", "y"]))) got.push(m.value);
    assert.deepEqual(got, ["echo:x", "echo:y"]);
  });

  it("maps a domain error to its code with an ErrorInfo detail", async () => {
    const err = await client.unary({ value: "missing" }).then(
      () => assert.fail("expected an error"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.rawMessage, "File 'missing' not found; list the directory to see what exists.");
    const [info] = err.findDetails(ErrorInfoSchema);
    assert.equal(info?.reason, "NOT_FOUND");
    assert.equal(info?.domain, "toolhost");
    assert.deepEqual(info?.metadata, { path: "missing" });
  });

  it("hides the text of an unexpected error, which may name paths outside the roots", async () => {
    const err = await client.unary({ value: "crash" }).then(
      () => assert.fail("expected an error"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.equal(err.code, Code.Internal);
    assert.doesNotMatch(err.rawMessage, /secret/);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "IO_ERROR");
  });

  it("delivers an error raised in the middle of a stream after the messages before it", async () => {
    const got: string[] = [];
    const err = await (async () => {
      for await (const m of client.serverStream({ value: "fail-midway" })) got.push(m.value);
    })().then(
      () => assert.fail("expected an error"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.deepEqual(got, ["one"]);
    assert.equal(err.code, Code.ResourceExhausted);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "TOO_LARGE");
  });

  it("stops producing when the client does not read (backpressure)", async () => {
    const stream = client.serverStream({ value: "endless" })[Symbol.asyncIterator]();
    await stream.next();
    // Wait until the producer stalls: the count stops changing.
    let last = -1;
    while (seen.produced !== last) {
      last = seen.produced;
      await sleep(300);
    }
    // 10,000 messages of 64 KiB would be 625 MiB; the adapter's bound plus HTTP/2 and socket
    // buffers hold a few MiB at most.
    assert.ok(seen.produced < 400, `produced ${seen.produced} messages without a reader`);
    await stream.return?.();
  });

  it("turns a client cancel into an aborted handler signal", async () => {
    const controller = new AbortController();
    const stream = client.serverStream({ value: "hang" }, { signal: controller.signal })[Symbol.asyncIterator]();
    assert.equal((await stream.next()).value?.value, "first");
    const signal = seen.signals.at(-1)!;
    assert.equal(signal.aborted, false);
    controller.abort();
    await new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener("abort", resolve)));
    assert.equal(ConnectError.from(signal.reason).code, Code.Canceled);
  });

  it("turns an expired deadline into an aborted handler signal", async () => {
    const err = await client.unary({ value: "wait" }, { timeoutMs: 200 }).then(
      () => assert.fail("expected an error"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.equal(err.code, Code.DeadlineExceeded);
    const signal = seen.signals.at(-1)!;
    await new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener("abort", resolve)));
    assert.equal(signal.aborted, true);
  });

  for (const [kind, method, messagesBefore] of [
    ["a unary call", "Unary", 0],
    ["a server stream, after its first message,", "ServerStream", 1],
  ] as const) {
    it(`answers ${kind} whose handler ignores its signal DEADLINE_EXCEEDED at the deadline`, async () => {
      // A raw client keeps no deadline of its own: the status it gets is the server's.
      const raw = await RawGrpcConnection.open(host.address);
      const id = `ignore-signal-${method}`;
      try {
        const stream = raw.start(`/toolhost.testing.v1.Echo/${method}`, {
          headers: { "grpc-timeout": "100m", "x-request-id": id },
        });
        stream.end(frame(toBinary(StringValueSchema, create(StringValueSchema, { value: "ignore-signal" }))));
        const result = await collect(stream);
        assert.equal(result.grpcStatus, Code.DeadlineExceeded, JSON.stringify(result.trailers));
        assert.match(result.grpcMessage ?? "", /deadline \(grpc-timeout\) passed before it ended; retry with a longer/);
        assert.equal(result.messages.length, messagesBefore);
        const record = await recordOf(id);
        assert.equal(record.code, Code.DeadlineExceeded);
      } finally {
        for (const done of seen.release.splice(0)) done();
        raw.close();
      }
    });
  }

  it("gives a handler that first asks for its signal after the client cancelled an aborted one", async () => {
    const controller = new AbortController();
    const call = client.unary({ value: "look-late" }, { signal: controller.signal });
    await sleep(50);
    controller.abort();
    await assert.rejects(call, (e: unknown) => ConnectError.from(e).code === Code.Canceled);
    const before = seen.signals.length;
    for (let i = 0; i < 100 && seen.signals.length === before; i++) await sleep(20);
    const signal = seen.signals.at(-1)!;
    assert.equal(signal.aborted, true);
    assert.equal(ConnectError.from(signal.reason).code, Code.Canceled);
  });

  it("gives a handler that first asks for its signal after its deadline an aborted one, as DEADLINE_EXCEEDED", async () => {
    const err = await client.unary({ value: "look-late" }, { timeoutMs: 100 }).then(
      () => assert.fail("expected an error"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.equal(err.code, Code.DeadlineExceeded);
    const before = seen.signals.length;
    for (let i = 0; i < 100 && seen.signals.length === before; i++) await sleep(20);
    const signal = seen.signals.at(-1)!;
    assert.equal(signal.aborted, true);
    assert.equal(ConnectError.from(signal.reason).code, Code.DeadlineExceeded);
  });

  it("does not commit a client stream the client cancelled", async () => {
    seen.clientStreamOutcome = "";
    const controller = new AbortController();
    const call = client.clientStream(
      messages(["a", "b"], async () => {
        await sleep(100);
        controller.abort();
        await sleep(10_000);
      }),
      { signal: controller.signal },
    );
    await assert.rejects(call, (e: unknown) => ConnectError.from(e).code === Code.Canceled);
    for (let i = 0; i < 250 && seen.clientStreamOutcome === ""; i++) await sleep(20);
    assert.equal(seen.clientStreamOutcome, "aborted after 2");
  });

  it("answers a malformed client-stream message with INVALID_ARGUMENT, not a cancel", async () => {
    const raw = new GrpcClient(host.address, credentials.createInsecure());
    try {
      const status = await new Promise<ServiceError | null>((resolve) => {
        const call = raw.makeClientStreamRequest(
          "/toolhost.testing.v1.Echo/ClientStream",
          (b: Buffer) => b,
          (b: Buffer) => b,
          (err) => resolve(err),
        );
        // 0xff 0xff: a field tag with an invalid wire type, which no message parses.
        call.write(Buffer.from([0xff, 0xff]));
        call.end();
      });
      assert.equal(status?.code, grpcStatus.INVALID_ARGUMENT);
      assert.match(status?.details ?? "", /not a valid google\.protobuf\.StringValue message/);
    } finally {
      raw.close();
    }
  });

  it("advertises an 8 MiB stream window, so uploads do not wait every 64 KiB and reach 50 MB/s over a 50 ms round trip", async () => {
    const session = connectHttp2(`http://${host.address}`);
    try {
      // The window is in the server's first SETTINGS frame (the grpc-js host widened it in a second).
      const settings = await new Promise<{ initialWindowSize?: number }>((resolve) =>
        session.once("remoteSettings", resolve),
      );
      assert.equal(settings.initialWindowSize, 8 * 1024 * 1024);
    } finally {
      session.close();
    }
  });

  it("logs one record per call with method, code and bytes", async () => {
    await client.unary({ value: "log-me" });
    const record = records.findLast((r) => r.method === "/toolhost.testing.v1.Echo/Unary" && r.code === 0);
    assert.ok(record, "no record for the call");
    assert.equal(record.bytesIn, 8);
    assert.equal(record.bytesOut, 8);
    assert.match(record.requestId, /^[0-9a-f-]{36}$/);
    assert.match(record.peer, /127\.0\.0\.1/);
  });
});

describe("the gRPC host's close", () => {
  it("aborts the signal of a call still running when the grace period is over", async () => {
    const host = await startEchoHost(withErrorMapping(echoService, impl as unknown as ServiceImpl<DescService>));
    const client = echoClient(host);
    const before = seen.signals.length;
    const stream = client.serverStream({ value: "hang" })[Symbol.asyncIterator]();
    assert.equal((await stream.next()).value?.value, "first");
    const signal = seen.signals[before]!;
    assert.equal(signal.aborted, false);
    const drained = stream.next().catch((err: unknown) => ConnectError.from(err));
    await host.close(50);
    assert.equal(signal.aborted, true, "the live call's signal was aborted at the end of the grace period");
    await drained;
  });
});
