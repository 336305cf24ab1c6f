import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { flood, type Flood } from "../support/frame-flood.js";
import { leanClient } from "../support/lean-h2-client.js";
import { answerCalls, grpcMessage, h2, h2Frame, headerBlock, RawH2Peer, responseHeaders, settings, type PeerConnection } from "../support/raw-h2-peer.js";
import { settle } from "../support/settle-call.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** memoryAfterGc is the process's heap and ArrayBuffer bytes once what is garbage has been collected. */
async function memoryAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

describe("@toolhost/client's own HTTP/2 client against a server that floods it", { timeout: 120_000 }, () => {
  it("ends the connection with GOAWAY ENHANCE_YOUR_CALM while a header block goes on in empty CONTINUATION frames, and fails the call Internal", async () => {
    const cap = 9 * 500_000; // 500,000 empty CONTINUATION frames at most
    let flooding: Flood | undefined;
    const peer = await RawH2Peer.start((conn) => {
      if (conn.index > 0) return answerCalls(conn);
      conn.send(settings());
      conn.on("stream", (id: number) => {
        conn.send(h2Frame(h2.type.headers, 0, id, headerBlock([[":status", "200"]]))); // no END_HEADERS
        flooding = flood(conn, h2Frame(h2.type.continuation, 0, id), cap);
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      const first = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(first.outcome, "Internal", first.error?.message);
      assert.match(first.error!.message, /CONTINUATION/);
      const broken = peer.connections[0]!;
      await broken.waitFor((f) => f.type === h2.type.goaway, "a GOAWAY");
      assert.ok(flooding!.sentBytes() < cap, "the GOAWAY came only once the peer had sent all its CONTINUATION frames");
      assert.equal(broken.goawayCode(), h2.error.enhanceYourCalm, `GOAWAY code 0x${broken.goawayCode()?.toString(16)}`);
      assert.equal(await flooding!.ended(), "closed");
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      assert.equal(peer.connections.length, 2);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  for (const [kind, unit] of [
    ["PING", h2Frame(h2.type.ping, 0, 0, Buffer.alloc(8))],
    ["SETTINGS", settings()],
  ] as const) {
    it(`ends the connection of a server that floods ${kind} frames and never reads the answers, and fails the call Internal`, async () => {
      // The client answers each frame in as many bytes as the frame: once the peer has stopped
      // reading, the answers fill both sockets' kernel buffers, then 4 MiB in the client's own
      // queue, then 1,000 more (about 8 MiB in all here). 32 MiB is well past that.
      const cap = 32 * 1024 * 1024;
      let flooding: Flood | undefined;
      const peer = await RawH2Peer.start((conn) => {
        if (conn.index > 0) return answerCalls(conn);
        conn.send(settings());
        conn.on("stream", (id: number) => {
          conn.socket.pause(); // no more reading (until the call has failed)
          conn.send(responseHeaders(id));
          flooding = flood(conn, unit, cap);
        });
      });
      const { files, connector } = leanClient(peer.url);
      try {
        const first = await settle(files.statFile({ path: "a.txt" }), 15_000);
        const sentByThen = flooding!.sentBytes();
        assert.equal(first.outcome, "Internal", first.error?.message);
        assert.match(first.error!.message, /PING or SETTINGS/);
        assert.ok(sentByThen < cap, "the call failed only once the peer had sent all it would");
        assert.equal(connector.state(), "idle", "the flooded connection is still the connector's");
        peer.connections[0]!.socket.resume(); // reading again, the peer finds the connection closed
        assert.equal(await flooding!.closed(), true, "the client did not close the connection");
        assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
        assert.equal(peer.connections.length, 2);
      } finally {
        connector.abort();
        await peer.close();
      }
    });
  }

  // Held DATA costs its bytes, not the socket chunk each frame came in (a byte's frame may pin a
  // 64 KB chunk) nor a buffer per frame: either way, 1 MiB held could cost the client 100 MiB.
  for (const { what, units, extra } of [
    { what: "1,024 one-byte DATA frames, each in a 64 KB socket chunk of its own", units: 1024, extra: 4 },
    { what: "1,000,000 one-byte DATA frames", units: 1_000_000, extra: 0 },
  ]) {
    it(`holds what a paused stream receives in memory of its size: ${what} grow the heap and ArrayBuffers < 32 MiB`, async () => {
      let flooding: Flood | undefined;
      let conn: PeerConnection | undefined;
      const peer = await RawH2Peer.start((c) => {
        conn = c;
        c.send(settings());
        c.on("request", (id: number) => {
          // Two ReadFileResponse messages: the reader (high-water mark 1 byte) takes the first and
          // pauses the stream. Then one-byte DATA frames, each followed by `extra` frames of
          // 16,000 bytes of a type the client must ignore (RFC 9113, section 4.1).
          const part = (b: number) => grpcMessage(Buffer.from([0x1a, 10, ...Buffer.alloc(10, b)]));
          c.send(responseHeaders(id), h2Frame(h2.type.data, 0, id, Buffer.concat([part(1), part(2)])));
          const unit = Buffer.concat([h2Frame(h2.type.data, 0, id, Buffer.from([0])), ...Array.from({ length: extra }, () => h2Frame(0x42, 0, 0, Buffer.alloc(16_000)))]);
          flooding = flood(c, unit, units * unit.byteLength);
        });
      });
      const { files, connector } = leanClient(peer.url, {}, 1);
      try {
        const before = await memoryAfterGc();
        const messages = files.readFile({ path: "a.txt", mode: ReadMode.BYTES }, { timeoutMs: 30_000 })[Symbol.asyncIterator]();
        const first = await settle(messages.next());
        assert.equal(first.outcome, "ok", first.error?.message);
        assert.equal(await flooding!.ended(20_000), "sent all");
        // A PING after the flood: its ACK says the client has taken in every frame before it.
        conn!.send(h2Frame(h2.type.ping, 0, 0, Buffer.from("flooded!", "latin1")));
        await conn!.waitFor((f) => f.type === h2.type.ping && f.payload.toString("latin1") === "flooded!", "the PING ACK", 20_000);
        const growth = (await memoryAfterGc()) - before;
        assert.ok(growth < 32 * 1024 * 1024, `the heap and ArrayBuffers grew ${(growth / 1024 / 1024).toFixed(1)} MiB for ${units} held bytes`);
        assert.equal((await settle(messages.return!())).outcome, "ok");
      } finally {
        connector.abort();
        await peer.close();
      }
    });
  }
});
