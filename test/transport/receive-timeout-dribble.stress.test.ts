// The receive timeout bounds a request message from its first byte (a single-request method's:
// from the stream's start to its half-close), however its bytes are spread: a client that sends
// one byte at a time, each well within the timeout, is still cancelled once the message's time
// is up, as the grpc-js host did, and nothing is written.
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import type { ClientHttp2Stream } from "node:http2";
import { after, before, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { RawGrpcConnection, frame } from "../support/raw-grpc.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const timeoutMs = 300;
/** Far more bytes than the timeout lets arrive at one per tick. */
const dribbled = 60;

/**
 * dribble writes `bytes` one at a time, one per tick (a third of the timeout), until they are all
 * out or the server closes the stream; it resolves with how many went out.
 */
function dribble(stream: ClientHttp2Stream, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const tick = setInterval(() => {
      if (stream.closed || stream.destroyed || sent === bytes.length) {
        clearInterval(tick);
        resolve(sent);
        return;
      }
      stream.write(bytes.subarray(sent, sent + 1));
      sent += 1;
    }, timeoutMs / 3);
  });
}

/**
 * dribbleMessageUntilCancelled sends a message of `dribbled` bytes (prefix and body) a byte at a
 * time and checks that the server cancelled the stream before the whole message went out.
 */
async function dribbleMessageUntilCancelled(stream: ClientHttp2Stream): Promise<void> {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(dribbled, 1);
  const closed = new Promise((resolve) => stream.once("close", resolve));
  const sent = await dribble(stream, Buffer.concat([prefix, Buffer.alloc(dribbled, 0x20)]));
  await closed;
  assert.equal(stream.rstCode, 8, "CANCEL");
  assert.ok(sent < dribbled + 5, `the whole message went out (${sent} bytes) before the stream was cancelled`);
}

describe("the receive timeout against a request sent a byte at a time", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ limits: { receiveMessageTimeoutMs: timeoutMs } });
  });
  after(() => server.close());

  it("cancels a unary request whose message keeps arriving a byte at a time", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      const s = c.start("/toolhost.files.v1.FileTools/WriteFile");
      await dribbleMessageUntilCancelled(s);
    } finally {
      c.close();
    }
    assert.deepEqual(await readdir(server.root), []);
  });

  it("cancels an upload message that keeps arriving a byte at a time, and writes nothing", async () => {
    const c = await RawGrpcConnection.open(server.address);
    try {
      const s = c.start("/toolhost.files.v1.FileTools/UploadFile");
      s.write(
        frame(
          toBinary(
            UploadFileRequestSchema,
            create(UploadFileRequestSchema, { part: { case: "header", value: { path: "drip.txt" } } }),
          ),
        ),
      );
      await dribbleMessageUntilCancelled(s);
    } finally {
      c.close();
    }
    assert.deepEqual(await readdir(server.root), []);
  });
});
