import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { EnvelopeSplitter, frameMessage } from "../../clients/ts/src/transport/grpc-envelope.js";

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
  for (const chunk of chunks) splitter.push(chunk, (m) => messages.push(Buffer.from(m)));
  return { messages, pending: splitter.pendingBytes };
}

describe("@toolhost/client's gRPC message splitter", () => {
  it("hands on every message whole and in order however the body is cut, headers split included", () => {
    const started = Date.now();
    for (let round = 0; round < 300 && Date.now() - started < 10_000; round++) {
      const sent = Array.from({ length: randomInt(1, 12) }, () => randomBytes([0, 1, 4, 5, 100, 16_384, 70_000][randomInt(7)]!));
      const body = Buffer.concat(sent.map((m) => frameMessage(m)));
      const cut = [() => 1, () => randomInt(1, 8), () => randomInt(1, 20_000), () => 16_384, () => randomInt(1, 200_000)][round % 5]!;
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
      (e: unknown) => e instanceof ConnectError && e.code === Code.ResourceExhausted && /101 is larger than configured readMaxBytes 100/.test(e.message),
    );
    const compressed = frameMessage(Buffer.from("x"));
    compressed[0] = 1;
    assert.throws(
      () => messagesOf([compressed]),
      (e: unknown) => e instanceof ConnectError && e.code === Code.Internal && /compressed/.test(e.message),
    );
  });
});
