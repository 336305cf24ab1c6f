import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fromBinary } from "@bufbuild/protobuf";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { WriteFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { leanClient } from "../support/lean-h2-client.js";
import { answerCalls, grpcMessage, grpcOk, h2, h2Frame, RawH2Peer, responseHeaders, settings, trailers, u32Frame, type RawFrame } from "../support/raw-h2-peer.js";
import { seededRandom } from "../support/seeded-random.js";
import { settle } from "../support/settle-call.js";

describe("@toolhost/client's own HTTP/2 client against a server that keeps HTTP/2", { timeout: 60_000 }, () => {
  it("sends a 200 KB request within the flow-control windows the server grants, and the server gets it intact", async () => {
    const violations: string[] = [];
    let received: Buffer | undefined;
    let dataFrames = 0;
    const peer = await RawH2Peer.start((conn) => {
      // Stream windows of 100 bytes once the client has acknowledged these SETTINGS (65,535 before,
      // RFC 9113 section 6.9.2); the connection's window grows only by the WINDOW_UPDATEs sent here.
      conn.send(settings([[h2.setting.initialWindowSize, 100]]));
      let acknowledged = false;
      let connectionWindow = 65_535;
      const windows = new Map<number, number>();
      conn.on("frame", (f: RawFrame) => {
        if (f.type === h2.type.settings && (f.flags & h2.flag.ack) !== 0 && !acknowledged) {
          acknowledged = true;
          for (const [id, w] of windows) windows.set(id, w + 100 - 65_535);
        } else if (f.type === h2.type.headers && !windows.has(f.streamId)) {
          windows.set(f.streamId, acknowledged ? 100 : 65_535);
        } else if (f.type === h2.type.data) {
          dataFrames++;
          const n = f.payload.byteLength;
          connectionWindow -= n;
          const streamWindow = windows.get(f.streamId)! - n;
          windows.set(f.streamId, streamWindow);
          if (connectionWindow < 0) violations.push(`DATA of ${n} bytes left the connection window at ${connectionWindow}`);
          if (streamWindow < 0) violations.push(`DATA of ${n} bytes left stream ${f.streamId}'s window at ${streamWindow}`);
          if (n > 0) {
            conn.send(u32Frame(h2.type.windowUpdate, 0, n));
            connectionWindow += n;
            if ((f.flags & h2.flag.endStream) === 0) {
              conn.send(u32Frame(h2.type.windowUpdate, f.streamId, n));
              windows.set(f.streamId, streamWindow + n);
            }
          }
        }
      });
      conn.on("request", (id: number, body: Buffer) => {
        received = body;
        conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      const random = seededRandom(200);
      const content = Buffer.from(Array.from({ length: 200 * 1024 }, () => Math.floor(random() * 256)));
      const result = await settle(files.writeFile({ path: "big.bin", content: { case: "data", value: content } }), 30_000);
      assert.equal(result.outcome, "ok", result.error?.message);
      assert.deepEqual(violations, []);
      assert.ok(dataFrames > 1_000, `only ${dataFrames} DATA frames: the 100-byte stream window was not used`);
      assert.ok(received !== undefined);
      assert.equal(received[0], 0, "uncompressed");
      assert.equal(received.readUInt32BE(1), received.byteLength - 5);
      const request = fromBinary(WriteFileRequestSchema, received.subarray(5));
      assert.equal(request.path, "big.bin");
      assert.equal(request.content.case, "data");
      assert.equal(request.content.value?.length, content.byteLength);
      assert.ok(Buffer.from(request.content.value as Uint8Array).equals(content), "the content arrived changed");
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("keeps to SETTINGS_MAX_CONCURRENT_STREAMS=1: five concurrent calls all succeed, one stream at a time", async () => {
    let open = 0;
    let mostOpen = 0;
    let streams = 0;
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings([[h2.setting.maxConcurrentStreams, 1]]));
      conn.on("stream", () => {
        streams++;
        mostOpen = Math.max(mostOpen, ++open);
      });
      conn.on("request", (id: number) =>
        setTimeout(() => {
          open--; // closed once the answer (END_STREAM) goes out: the client's side ended already
          conn.send(grpcOk(id));
        }, 20),
      );
    });
    const { files, connector } = leanClient(peer.url);
    try {
      // A first call, so that the client has the server's SETTINGS before the five start (before
      // them, RFC 9113 lets a client assume no limit).
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      const results = await Promise.all(Array.from({ length: 5 }, () => settle(files.statFile({ path: "a.txt" }))));
      assert.deepEqual(
        results.map((r) => r.outcome),
        ["ok", "ok", "ok", "ok", "ok"],
      );
      assert.equal(streams, 6);
      assert.equal(mostOpen, 1, "the server saw two streams open at once");
      assert.equal(peer.connections.length, 1);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("close() with MAX_CONCURRENT_STREAMS=1 lets both calls made before it finish, the one waiting for a slot too; later calls fail Unavailable", async () => {
    const peer = await RawH2Peer.start((conn) => answerCalls(conn, [[h2.setting.maxConcurrentStreams, 1]]));
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok"); // the server's SETTINGS are in
      const both = Promise.all([settle(files.statFile({ path: "a.txt" })), settle(files.statFile({ path: "b.txt" }))]);
      connector.close();
      assert.deepEqual(
        (await both).map((r) => r.outcome),
        ["ok", "ok"],
      );
      const later = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(later.outcome, "Unavailable", later.error?.message);
      assert.match(later.error!.message, /the client was closed/);
      assert.deepEqual(
        peer.connections[0]!.frames.filter((f) => f.type === h2.type.headers).map((f) => f.streamId),
        [1, 3, 5],
      );
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  // Padding counts against both windows (RFC 9113, section 6.9.1): were it given back to the
  // connection alone, each padded frame would shrink the stream's window for good.
  it("credits the stream's window for the padding of DATA frames too: padded DATA through a 1,000-byte stream window does not stall", async () => {
    let connectionWindow = 65_535;
    let streamWindow = 1_000; // the client's streamWindow below
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      // An honest server: DATA, padding included, only within the windows.
      const pending: Buffer[] = [];
      const flush = () => {
        while (pending.length > 0) {
          const n = pending[0]![3] === h2.type.data ? pending[0]!.byteLength - 9 : 0;
          if (n > connectionWindow || n > streamWindow) return;
          connectionWindow -= n;
          streamWindow -= n;
          conn.send(pending.shift()!);
        }
      };
      conn.on("frame", (f: RawFrame) => {
        if (f.type !== h2.type.windowUpdate) return;
        if (f.streamId === 0) connectionWindow += f.payload.readUInt32BE(0);
        else streamWindow += f.payload.readUInt32BE(0);
        flush();
      });
      conn.on("request", (id: number) => {
        pending.push(responseHeaders(id));
        for (let i = 0; i < 100; i++) {
          // Pad Length 100, a 17-byte message, 100 bytes of padding: 118 bytes of window, 17 to read.
          const message = grpcMessage(Buffer.from([0x1a, 10, ...Buffer.alloc(10, i)])); // ReadFileResponse{data}
          pending.push(h2Frame(h2.type.data, h2.flag.padded, id, Buffer.concat([Buffer.from([100]), message, Buffer.alloc(100)])));
        }
        pending.push(trailers(id));
        flush();
      });
    });
    const { files, connector } = leanClient(peer.url, { streamWindow: 1_000 });
    try {
      const parts: number[] = [];
      const read = await settle(
        (async () => {
          for await (const r of files.readFile({ path: "a.txt", mode: ReadMode.BYTES }, { timeoutMs: 3_000 })) {
            if (r.part.case === "data") parts.push(r.part.value[0]!);
          }
        })(),
      );
      assert.equal(read.outcome, "ok", read.error?.message);
      assert.deepEqual(parts, Array.from({ length: 100 }, (_, i) => i));
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("fails the call on a stream past a GOAWAY's last stream with Unavailable, and the next call opens a new connection", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        if (conn.index === 0 && id === 3) conn.send(u32Frame(h2.type.goaway, 0, 1, h2.error.noError));
      });
      conn.on("request", (id: number) => {
        if (conn.index > 0 || id === 1) conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      const refused = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(refused.outcome, "Unavailable", refused.error?.message);
      const next = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(next.outcome, "ok", next.error?.message);
      assert.equal(peer.connections.length, 2);
      assert.deepEqual(
        peer.connections[1]!.frames.filter((f) => f.type === h2.type.headers).map((f) => f.streamId),
        [1],
      );
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("answers the server's PING with a PING ACK of the same 8 bytes, and does not answer a PING ACK", async () => {
    const opaque = Buffer.from("p1ng-8by", "latin1");
    const peer = await RawH2Peer.start((conn) => {
      answerCalls(conn);
      conn.send(h2Frame(h2.type.ping, 0, 0, opaque), h2Frame(h2.type.ping, h2.flag.ack, 0, Buffer.from("unasked!", "latin1")));
    });
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      const conn = peer.connections[0]!;
      const ack = await conn.waitFor((f) => f.type === h2.type.ping, "a PING ACK");
      assert.equal(ack.flags & h2.flag.ack, h2.flag.ack);
      assert.equal(ack.streamId, 0);
      assert.deepEqual(ack.payload, opaque);
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok"); // a round trip later
      assert.equal(conn.frames.filter((f) => f.type === h2.type.ping).length, 1);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("fails a call the server resets: REFUSED_STREAM with Unavailable, CANCEL with Canceled", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        if (id === 1) conn.send(u32Frame(h2.type.rstStream, id, h2.error.refusedStream));
        if (id === 3) conn.send(responseHeaders(id), u32Frame(h2.type.rstStream, id, h2.error.cancel));
      });
      conn.on("request", (id: number) => {
        if (id > 3) conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      const refused = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(refused.outcome, "Unavailable", refused.error?.message);
      const canceled = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(canceled.outcome, "Canceled", canceled.error?.message);
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      assert.equal(peer.connections.length, 1);
    } finally {
      connector.abort();
      await peer.close();
    }
  });
});
