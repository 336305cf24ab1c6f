import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { StatFileRequestSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { RawGrpcConnection, RawH2Socket, frame, h2 } from "../support/raw-grpc.js";

const upload = "/toolhost.files.v1.FileTools/UploadFile";
const stat = "/toolhost.files.v1.FileTools/StatFile";
const health = "/grpc.health.v1.Health/Check";
const INVALID_ARGUMENT = 3;

function uploadBody(path: string, chunks: Buffer[]): Buffer {
  const header = toBinary(
    UploadFileRequestSchema,
    create(UploadFileRequestSchema, { part: { case: "header", value: { path } } }),
  );
  const data = chunks.map((c) =>
    frame(toBinary(UploadFileRequestSchema, create(UploadFileRequestSchema, { part: { case: "data", value: c } }))),
  );
  return Buffer.concat([frame(header), ...data]);
}

async function healthy(address: string): Promise<boolean> {
  const c = await RawGrpcConnection.open(address);
  try {
    const r = await c.call(health, frame(new Uint8Array()), 5000);
    return r.grpcStatus === 0 && r.messages.length === 1;
  } finally {
    c.close();
  }
}

describe("stream guard (raw HTTP/2)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ limits: { maxConcurrentStreams: 8, receiveMessageTimeoutMs: 400 } });
  });
  after(() => server.close());

  it("refuses the stream over the per-connection limit alone; the others continue", async () => {
    await writeFile(join(server.root, "a.txt"), "a");
    const raw = await RawH2Socket.open(server.address);
    try {
      const ids = Array.from({ length: 9 }, () => raw.request(stat));
      const refused = await raw.waitFor((f) => f.type === h2.RST_STREAM, 5000);
      assert.equal(refused.streamId, ids[8]);
      assert.equal(refused.payload.readUInt32BE(0), 7, "REFUSED_STREAM");
      // The first eight are still open: each answers once its request arrives.
      const request = frame(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" })));
      for (const id of ids.slice(0, 8)) {
        raw.data(id, request, true);
      }
      for (const id of ids.slice(0, 8)) {
        const trailers = await raw.waitFor(
          (f) => f.type === h2.HEADERS && f.streamId === id && (f.flags & h2.END_STREAM) !== 0,
          5000,
        );
        assert.ok(trailers.payload.length > 0);
      }
      assert.equal(raw.frames.filter((f) => f.type === h2.RST_STREAM).length, 1);
      assert.equal(raw.frames.filter((f) => f.type === h2.GOAWAY).length, 0);
      assert.equal(raw.closed, false);
    } finally {
      raw.close();
    }
  });

  it("answers a unary call without a request message with INVALID_ARGUMENT", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      const r = await c.call(stat, new Uint8Array());
      assert.equal(r.grpcStatus, INVALID_ARGUMENT);
      assert.match(r.grpcMessage ?? "", /^The request message is missing/);
    } finally {
      c.close();
    }
  });

  it("does not commit an upload whose last message is cut short", async () => {
    await writeFile(join(server.root, "target.txt"), "original\n");
    const body = uploadBody("target.txt", [Buffer.alloc(1000, 0x61), Buffer.alloc(1000, 0x62)]);
    const c = await RawGrpcConnection.open(server.address);
    try {
      const r = await c.call(upload, body.subarray(0, body.length - 10));
      assert.equal(r.grpcStatus, INVALID_ARGUMENT);
      assert.match(r.grpcMessage ?? "", /ended inside a message.*nothing was committed/);
      assert.equal(await readFile(join(server.root, "target.txt"), "utf8"), "original\n");
      // The aborted upload removes its temporary file as it unwinds.
      for (let i = 0; i < 100 && (await readdir(server.root)).length > 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual((await readdir(server.root)).sort(), ["a.txt", "target.txt"]);
      // The same upload whole is committed: the cut, not the content, was refused.
      const whole = await c.call(upload, body);
      assert.equal(whole.grpcStatus, 0);
      assert.equal((await readFile(join(server.root, "target.txt"))).length, 2000);
    } finally {
      c.close();
    }
  });

  it("cancels a half-sent request message after the receive timeout, and health answers meanwhile", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      const started = Date.now();
      const streams = Array.from({ length: 4 }, () => {
        const s = c.start(upload);
        // A 16 MiB message announced, 1 KiB of it sent, then nothing.
        const prefix = Buffer.alloc(5);
        prefix.writeUInt32BE(16 * 1024 * 1024, 1);
        s.write(Buffer.concat([prefix, Buffer.alloc(1024)]));
        return s;
      });
      // Listened for before anything is awaited: under load the health call below can outlast
      // the receive timeout, and a 'close' emitted before its listener was never seen (a hang).
      const closed = Promise.all(streams.map((s) => new Promise((resolve) => s.once("close", resolve))));
      assert.equal(await healthy(server.address), true);
      await closed;
      const took = Date.now() - started;
      assert.ok(took >= 350 && took < 5000, `closed after ${took} ms`);
      assert.deepEqual(
        streams.map((s) => s.rstCode),
        [8, 8, 8, 8],
        "CANCEL",
      );
    } finally {
      c.close();
    }
  });
});

describe("timeouts and the process-wide receive budget (raw HTTP/2)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      limits: {
        receiveMessageTimeoutMs: 300,
        idleConnectionTimeoutMs: 300,
        maxReceiveBufferBytesPerConnection: 3 * 1024 * 1024,
        maxReceiveBufferBytes: 4 * 1024 * 1024,
      },
    });
  });
  after(() => server.close());

  it("cancels a unary request that never half-closes after the receive timeout", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      const s = c.start(stat);
      s.write(frame(toBinary(StatFileRequestSchema, create(StatFileRequestSchema, { path: "a.txt" }))));
      const started = Date.now();
      await new Promise((resolve) => s.once("close", resolve));
      assert.equal(s.rstCode, 8, "CANCEL");
      assert.ok(Date.now() - started < 3000);
    } finally {
      c.close();
    }
  });

  it("lets an upload wait between messages, and times each message from its first byte", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      const s = c.start(upload);
      s.write(
        frame(
          toBinary(
            UploadFileRequestSchema,
            create(UploadFileRequestSchema, { part: { case: "header", value: { path: "slow.txt" } } }),
          ),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal(s.closed, false, "a stream between messages is not timed");
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(1000, 1);
      s.write(Buffer.concat([prefix, Buffer.alloc(10)]));
      const started = Date.now();
      await new Promise((resolve) => s.once("close", resolve));
      assert.equal(s.rstCode, 8, "CANCEL");
      const took = Date.now() - started;
      assert.ok(took >= 250 && took < 3000, `cancelled after ${took} ms`);
      assert.deepEqual(
        (await readdir(server.root)).filter((n) => n.includes("slow")),
        [],
      );
    } finally {
      c.close();
    }
  });

  it("closes a connection that has no stream for the idle timeout", async () => {
    const c = await RawGrpcConnection.open(server.address);
    const started = Date.now();
    for (let i = 0; i < 100 && !c.closed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(c.closed, true, "the idle connection is still open");
    assert.ok(Date.now() - started < 5000);
  });

  it("resets the stream that would pass the process-wide budget, on whichever connection", async () => {
    const MiB = 1024 * 1024;
    const conns = await Promise.all([RawGrpcConnection.open(server.address), RawGrpcConnection.open(server.address)]);
    try {
      // 2.5 MiB of a 16 MiB message on each connection: each is under its 3 MiB, together over 4.
      const streams = conns.map((c) => {
        const s = c.start(upload);
        const prefix = Buffer.alloc(5);
        prefix.writeUInt32BE(16 * MiB, 1);
        s.write(Buffer.concat([prefix, Buffer.alloc(2.5 * MiB)]));
        return s;
      });
      await Promise.race(streams.map((s) => new Promise((resolve) => s.once("close", resolve))));
      // (rstCode reads 0 on a stream that is still open.)
      assert.deepEqual(
        streams.filter((s) => s.closed).map((s) => s.rstCode),
        [11],
        "one stream reset with ENHANCE_YOUR_CALM",
      );
      assert.equal(await healthy(server.address), true);
    } finally {
      conns.forEach((c) => c.close());
    }
  });
});
