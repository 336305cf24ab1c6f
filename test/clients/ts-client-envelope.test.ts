import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { create, toBinary, fromBinary } from "@bufbuild/protobuf";
import { BufferRecycler } from "../../clients/ts/src/transport/buffer-recycler.js";
import { EnvelopeSplitter, frameMessage } from "../../clients/ts/src/transport/grpc-envelope.js";
import { holdsView } from "../../clients/ts/src/transport/holds-view.js";
import { FileInfoSchema, ReadFileResponseSchema } from "../../gen/ts/toolhost/files/v1/read_pb.js";

/** split cuts `body` into chunks at the given sizes (the rest in one last chunk), as HTTP/2 might deliver it. */
function split(body: Buffer, sizes: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let o = 0; o < body.length; ) {
    const n = Math.min(Math.max(1, sizes()), body.length - o);
    chunks.push(Buffer.from(body.subarray(o, o + n))); // a chunk of its own, as node:http2 hands them over
    o += n;
  }
  return chunks;
}

/** messagesOf runs `chunks` through a splitter: the messages it handed on, copied, and the bytes it still holds. */
function messagesOf(chunks: Buffer[], max = 0xffffffff): { messages: Buffer[]; pending: number } {
  const splitter = new EnvelopeSplitter(max);
  const messages: Buffer[] = [];
  for (const chunk of chunks) splitter.push(chunk, (m) => void messages.push(Buffer.from(m)));
  return { messages, pending: splitter.pendingBytes };
}

describe("@toolhost/client's gRPC message splitter", () => {
  it("hands on every message whole and in order however the body is cut, headers split included", () => {
    const started = Date.now();
    for (let round = 0; round < 300 && Date.now() - started < 10_000; round++) {
      const sent = Array.from({ length: randomInt(1, 12) }, () =>
        randomBytes([0, 1, 4, 5, 100, 16_384, 70_000][randomInt(7)]!),
      );
      const body = Buffer.concat(sent.map((m) => frameMessage(m)));
      const cut = [
        () => 1,
        () => randomInt(1, 8),
        () => randomInt(1, 20_000),
        () => 16_384,
        () => randomInt(1, 200_000),
      ][round % 5]!;
      const { messages, pending } = messagesOf(split(body, cut));
      assert.deepEqual(messages, sent, `round ${round}`);
      assert.equal(pending, 0);
    }
  });

  it("hands on a message larger than it preallocates (17 MiB) whole, and counts an unfinished one as pending", () => {
    const big = randomBytes(17 * 1024 * 1024);
    const body = Buffer.concat([frameMessage(big), frameMessage(Buffer.from("next"))]);
    const { messages, pending } = messagesOf(split(body, () => 65_536));
    assert.equal(messages.length, 2);
    assert.ok(messages[0]!.equals(big));
    assert.equal(messages[1]!.toString(), "next");
    assert.equal(pending, 0);
    const cutShort = messagesOf([frameMessage(Buffer.alloc(1000, 1)).subarray(0, 700)]);
    assert.deepEqual(cutShort.messages, []);
    assert.equal(cutShort.pending, 695);
    assert.equal(messagesOf([Buffer.from([0, 0, 0])]).pending, 3);
  });

  it("refuses a message over the limit before taking its bytes, and a compressed one", () => {
    const tooBig = frameMessage(Buffer.alloc(101));
    assert.throws(
      () => messagesOf([tooBig.subarray(0, 5)], 100),
      (e: unknown) =>
        e instanceof ConnectError &&
        e.code === Code.ResourceExhausted &&
        /101 is larger than configured readMaxBytes 100/.test(e.message),
    );
    const compressed = frameMessage(Buffer.from("x"));
    compressed[0] = 1;
    assert.throws(
      () => messagesOf([compressed]),
      (e: unknown) => e instanceof ConnectError && e.code === Code.Internal && /compressed/.test(e.message),
    );
  });

  it("fills a message buffer again only once its taker is done with it, and never one a message still refers to", () => {
    const sent = Array.from({ length: 6 }, (_, i) => randomBytes(1024 * 1024 - i * 1000));
    const chunks = split(Buffer.concat(sent.map((m) => frameMessage(m))), () => 16_384);
    // A taker that copies each message out and says it is done: one buffer serves them all.
    const recycler = new BufferRecycler(4 * 1024 * 1024);
    const splitter = new EnvelopeSplitter(0xffffffff, recycler);
    const copies: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for (const chunk of chunks) splitter.push(chunk, (m) => (copies.push(Buffer.from(m)), buffers.add(m.buffer), true));
    assert.deepEqual(copies, sent);
    assert.equal(buffers.size, 1, "a buffer given back is filled by the next message");
    // A taker that keeps the messages (says nothing, or false): each keeps a buffer of its own, intact.
    for (const answer of [undefined, false]) {
      const keeping = new EnvelopeSplitter(0xffffffff, recycler);
      const kept: Uint8Array[] = [];
      for (const chunk of chunks) keeping.push(chunk, (m) => (kept.push(m), answer));
      assert.deepEqual(
        kept.map((m) => Buffer.from(m)),
        sent,
      );
      assert.equal(new Set(kept.map((m) => m.buffer)).size, sent.length);
    }
    // A spare buffer is lent only to a message of at least half its size, and none over the cap is kept.
    const small = recycler.take(1000);
    assert.ok(small.byteLength < 2000);
    recycler.give(Buffer.allocUnsafeSlow(8 * 1024 * 1024));
    assert.ok(
      recycler.take(5 * 1024 * 1024).byteLength === 5 * 1024 * 1024,
      "an 8 MiB buffer is over the 4 MiB cap: not kept",
    );
  });

  it("tells whether a decoded message refers to the bytes it was decoded from", () => {
    const decode = (init: Parameters<typeof create<typeof ReadFileResponseSchema>>[1]) => {
      const bytes = toBinary(ReadFileResponseSchema, create(ReadFileResponseSchema, init));
      return { bytes, message: fromBinary(ReadFileResponseSchema, bytes) };
    };
    const text = decode({ part: { case: "text", value: "hello" } });
    assert.equal(holdsView(text.message, text.bytes.buffer), false, "text is a string of its own");
    const info = decode({
      part: { case: "info", value: create(FileInfoSchema, { path: "a.txt", size: 5n, modified: { seconds: 1n } }) },
    });
    assert.equal(holdsView(info.message, info.bytes.buffer), false);
    const data = decode({ part: { case: "data", value: new Uint8Array([1, 2, 3]) } });
    assert.equal(holdsView(data.message, data.bytes.buffer), true, "bytes fields are views");
    assert.equal(holdsView(data.message, new ArrayBuffer(8)), false);
    const unknown = Buffer.concat([Buffer.from(text.bytes), Buffer.from([0xba, 0x3e, 0x02, 0x01, 0x02])]); // field 999, two bytes: unknown
    const withUnknown = fromBinary(ReadFileResponseSchema, unknown);
    assert.equal(holdsView(withUnknown, unknown.buffer), true, "unknown fields are kept as views");
    assert.equal(
      holdsView({ list: Array.from({ length: 10_000 }, (_, i) => i) }, new ArrayBuffer(8)),
      true,
      "past its budget it cannot tell",
    );
  });
});
