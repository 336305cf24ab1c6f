import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import type { ServerHttp2Stream } from "node:http2";
import { GrpcStreamLimits } from "../../src/transport/node-http2/grpc-stream-limits.js";

/**
 * FakeStream stands in for a ServerHttp2Stream whose close() has a synchronous side effect on
 * another stream (node:http2 runs native callbacks and 'aborted' listeners inside close()).
 */
class FakeStream extends EventEmitter {
  closed = false;
  rstCode = -1;
  onClosing: (() => void) | undefined;
  constructor(readonly session: object) {
    super();
  }
  close(code: number): void {
    if (this.closed) return;
    this.closed = true;
    this.rstCode = code;
    this.onClosing?.();
    this.emit("close");
  }
}

describe("the node:http2 host's receive-timeout sweep", () => {
  it("cancels every stalled stream even when closing one closes others synchronously", async () => {
    const limits = new GrpcStreamLimits({
      maxStreamsPerConnection: 100,
      maxReceiveBufferBytesPerConnection: 1 << 20,
      maxReceiveBufferBytes: 1 << 20,
      receiveMessageTimeoutMs: 20,
      singleRequest: () => true,
    });
    const session = {};
    const streams = Array.from({ length: 6 }, () => new FakeStream(session));
    for (const s of streams) {
      const account = limits.admit(s as unknown as ServerHttp2Stream, "/a.B/C", false);
      assert.ok(account);
      // As the host does: a closed stream gives its counts back and leaves the sweep.
      s.once("close", () => account.close());
      assert.equal(account.push(Buffer.from([0, 0, 0, 1, 0])), undefined); // a message begun, never finished
      limits.wait(account);
    }
    // The first stream the sweep closes closes the two first ones as well (all still waiting).
    let cascaded = false;
    for (const s of streams.slice(2)) {
      s.onClosing = () => {
        if (cascaded) return;
        cascaded = true;
        streams[0]!.close(8);
        streams[1]!.close(8);
      };
    }
    const crashed = once(process, "uncaughtException").then(([e]) => e as Error);
    const allClosed = Promise.all(streams.map((s) => (s.closed ? undefined : once(s, "close"))));
    // The sweep timer is unref'd: keep the loop alive while it runs.
    const keepAlive = setInterval(() => undefined, 1000);
    const first = await Promise.race([allClosed.then(() => undefined), crashed]).finally(() =>
      clearInterval(keepAlive),
    );
    assert.equal(first, undefined, `the sweep threw: ${String(first)}`);
    assert.deepEqual(
      streams.map((s) => s.rstCode),
      [8, 8, 8, 8, 8, 8],
      "CANCEL",
    );
    assert.deepEqual(limits.total, { streams: 0, receiveBytes: 0 }, "every stream's counts given back");
  });
});
