import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Code } from "@connectrpc/connect";
import type { Http2ConnectorOptions } from "../../clients/ts/src/transport/h2/http2-connector.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { leanClient, type Files } from "../support/lean-h2-client.js";
import { answerCalls, grpcMessage, grpcOk, h2, h2Frame, headerBlock, RawH2Peer, responseHeaders, settings, trailers, u32Frame, type PeerConnection } from "../support/raw-h2-peer.js";
import { settle } from "../support/settle-call.js";

/** readFileData is a ReadFileResponse whose part is `data` (field 3, bytes), encoded by hand. */
function readFileData(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x1a, data.byteLength]), data]);
}

/** BadServerCase is one way for a server's first connection to break HTTP/2. */
interface BadServerCase {
  readonly name: string;
  /** The first connection's script; later connections answer every call OK. */
  readonly script: (conn: PeerConnection) => void;
  /** The first call (a statFile when unset). */
  readonly call?: (files: Files, peer: RawH2Peer) => Promise<unknown>;
  readonly connector?: Http2ConnectorOptions;
  readonly highWaterBytes?: number;
  readonly code: Code;
  readonly message?: string;
  /** The GOAWAY error code the client must send, if it must. */
  readonly goaway?: number;
}

const badServers: BadServerCase[] = [
  {
    name: "answers in HTTP/1",
    script: (conn) => conn.send(Buffer.from("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "latin1")),
    code: Code.Unavailable,
    message: "HTTP/1",
  },
  {
    name: "sends a PING before its SETTINGS",
    script: (conn) => conn.send(h2Frame(h2.type.ping, 0, 0, Buffer.alloc(8)), settings()),
    code: Code.Internal,
    message: "SETTINGS",
    goaway: h2.error.protocolError,
  },
  {
    name: "announces a frame of 16 MiB - 1 (and never sends its payload)",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => conn.send(Buffer.from([0xff, 0xff, 0xff, h2.type.data, 0, 0, 0, 0, id])));
    },
    code: Code.Internal,
    goaway: h2.error.frameSizeError,
  },
  {
    name: "sends more DATA than the connection's window while the reader is paused",
    // Stream window 8 MiB, connection window 65,535 (no WINDOW_UPDATE): a streamed read whose
    // reader holds two messages past its 1-byte high-water mark is paused, so none of what
    // follows is credited back; one byte past 65,535 in all breaks the connection's window.
    connector: { connectionWindow: 65_535 },
    highWaterBytes: 1,
    call: async (files, peer) => {
      const messages = files.readFile({ path: "a.txt", mode: ReadMode.BYTES })[Symbol.asyncIterator]();
      await messages.next(); // the first message; the second stays queued and the stream paused
      await peer.connections[0]!.waitFor((f) => f.type === h2.type.goaway, "a GOAWAY");
      while (!(await messages.next()).done);
    },
    script: (conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        const first = Buffer.concat([grpcMessage(readFileData(Buffer.alloc(10, 1))), grpcMessage(readFileData(Buffer.alloc(10, 2)))]);
        const frames = [responseHeaders(id), h2Frame(h2.type.data, 0, id, first)];
        // Then the start of a 1 MiB message, to one byte past the connection's window.
        const rest = Buffer.alloc(65_535 - first.byteLength + 1);
        rest.writeUInt32BE(1024 * 1024, 1);
        for (let at = 0; at < rest.byteLength; at += 16_384) frames.push(h2Frame(h2.type.data, 0, id, rest.subarray(at, at + 16_384)));
        conn.send(...frames);
      });
    },
    code: Code.Internal,
    message: "window",
    goaway: h2.error.flowControlError,
  },
  {
    name: "sends a header block of endless CONTINUATION frames",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        const frames = [h2Frame(h2.type.headers, 0, id, Buffer.alloc(16_384, 0x61))];
        for (let i = 0; i < 64; i++) frames.push(h2Frame(h2.type.continuation, 0, id, Buffer.alloc(16_384, 0x61)));
        conn.send(...frames);
      });
    },
    code: Code.Internal,
    goaway: h2.error.enhanceYourCalm,
  },
  {
    name: "sends a PUSH_PROMISE",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => {
        const promised = Buffer.alloc(4);
        promised.writeUInt32BE(2);
        const block = headerBlock([[":method", "GET"], [":scheme", "http"], [":authority", "x"], [":path", "/pushed"]]);
        conn.send(h2Frame(h2.type.pushPromise, h2.flag.endHeaders, id, Buffer.concat([promised, block])));
      });
    },
    code: Code.Internal,
    message: "PUSH_PROMISE",
    goaway: h2.error.protocolError,
  },
  {
    name: "sends a header block that is not valid HPACK (index 0)",
    script: (conn) => {
      conn.send(settings());
      conn.on("stream", (id: number) => conn.send(h2Frame(h2.type.headers, h2.flag.endHeaders, id, Buffer.from([0x80]))));
    },
    code: Code.Internal,
    goaway: h2.error.compressionError,
  },
  {
    name: "sends a WINDOW_UPDATE on stream 2, one it could only have opened itself (and never did)",
    script: (conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => conn.send(u32Frame(h2.type.windowUpdate, 2, 1_000), grpcOk(id)));
    },
    code: Code.Internal,
    goaway: h2.error.protocolError,
  },
  {
    name: "closes the connection in the middle of a response",
    script: (conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        const partial = grpcMessage(Buffer.alloc(100, 7)).subarray(0, 40);
        conn.send(responseHeaders(id), h2Frame(h2.type.data, 0, id, partial));
        conn.socket.end();
      });
    },
    code: Code.Unavailable,
    message: "closed",
  },
];

describe("@toolhost/client's own HTTP/2 client against a server that breaks HTTP/2", { timeout: 60_000 }, () => {
  for (const bad of badServers) {
    it(`fails the call when the server ${bad.name}, and the next call opens a new connection`, async () => {
      const peer = await RawH2Peer.start((conn) => (conn.index === 0 ? bad.script(conn) : answerCalls(conn)));
      const { files, connector } = leanClient(peer.url, bad.connector, bad.highWaterBytes);
      try {
        const first = await settle(bad.call?.(files, peer) ?? files.statFile({ path: "a.txt" }));
        assert.equal(first.outcome, Code[bad.code], first.error?.message);
        if (bad.message !== undefined) assert.match(first.error!.message, new RegExp(bad.message), first.error!.message);
        assert.equal(connector.state(), "idle", "the broken connection is still the connector's");
        const broken = peer.connections[0]!;
        if (bad.goaway !== undefined) {
          await broken.waitFor((f) => f.type === h2.type.goaway, "a GOAWAY");
          assert.equal(broken.goawayCode(), bad.goaway, `GOAWAY code 0x${broken.goawayCode()?.toString(16)}`);
        }
        const second = await settle(files.statFile({ path: "a.txt" }));
        assert.equal(second.outcome, "ok", second.error?.message);
        assert.equal(peer.connections.length, 2, "the second call did not get a new connection");
      } finally {
        connector.abort();
        await peer.close();
      }
    });
  }

  it("resets a stream that gets more DATA than its window (FLOW_CONTROL_ERROR) and keeps the connection", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        // The client announced a stream window of 1,000 bytes: 1,001 in one frame breaks it.
        if (id === 1) conn.send(responseHeaders(id), h2Frame(h2.type.data, 0, id, Buffer.alloc(1_001)));
        else conn.send(grpcOk(id));
      });
    });
    const { files, connector } = leanClient(peer.url, { streamWindow: 1_000 });
    try {
      const first = await settle(files.statFile({ path: "a.txt" }));
      assert.equal(first.outcome, "Internal", first.error?.message);
      assert.match(first.error!.message, /0x3/);
      const rst = await peer.connections[0]!.waitFor((f) => f.type === h2.type.rstStream && f.streamId === 1, "a RST_STREAM of stream 1");
      assert.equal(rst.payload.readUInt32BE(0), h2.error.flowControlError);
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      assert.equal(peer.connections.length, 1, "a stream error must not cost the connection");
      assert.equal(peer.connections[0]!.goawayCode(), undefined);
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("fails a call whose response header value holds CR LF with Internal, with or without onHeader, and resets only its stream", async () => {
    const peer = await RawH2Peer.start((conn) => {
      conn.send(settings());
      conn.on("request", (id: number) => {
        const fields: [string, string][] = [[":status", "200"], ["content-type", "application/grpc"]];
        if (id < 5) fields.push(["x-bad", "a\r\nset-cookie: x"]); // a raw literal: the peer does not check it
        conn.send(h2Frame(h2.type.headers, h2.flag.endHeaders, id, headerBlock(fields)), h2Frame(h2.type.data, 0, id, grpcMessage()), trailers(id));
      });
    });
    const { files, connector } = leanClient(peer.url);
    try {
      const headersSeen: string[][] = [];
      const plain = await settle(files.statFile({ path: "a.txt" }));
      const withOnHeader = await settle(files.statFile({ path: "a.txt" }, { onHeader: (h) => headersSeen.push([...h.keys()]) }));
      assert.deepEqual([plain.outcome, withOnHeader.outcome], ["Internal", "Internal"], `${plain.error?.message} / ${withOnHeader.error?.message}`);
      assert.deepEqual(headersSeen, [], "onHeader was handed the malformed headers");
      for (const id of [1, 3]) {
        const rst = await peer.connections[0]!.waitFor((f) => f.type === h2.type.rstStream && f.streamId === id, `a RST_STREAM of stream ${id}`);
        assert.equal(rst.payload.readUInt32BE(0), h2.error.protocolError);
      }
      assert.equal((await settle(files.statFile({ path: "a.txt" }))).outcome, "ok");
      assert.equal(peer.connections.length, 1, "a stream error must not cost the connection");
    } finally {
      connector.abort();
      await peer.close();
    }
  });

  it("ends a call the server never answers at its deadline, and keeps the connection", async () => {
    const peer = await RawH2Peer.start((conn) => conn.send(settings()));
    const { files, connector } = leanClient(peer.url);
    try {
      assert.equal((await settle(files.statFile({ path: "a.txt" }, { timeoutMs: 100 }))).outcome, "DeadlineExceeded");
      assert.equal((await settle(files.statFile({ path: "a.txt" }, { timeoutMs: 100 }))).outcome, "DeadlineExceeded");
      assert.equal(peer.connections.length, 1);
      const conn = peer.connections[0]!;
      const resets = await conn.waitFor((f) => f.type === h2.type.rstStream && f.streamId === 3, "a RST_STREAM of stream 3");
      assert.equal(resets.payload.readUInt32BE(0), h2.error.cancel, "a call past its deadline resets its stream with CANCEL");
    } finally {
      connector.abort();
      await peer.close();
    }
  });
});
