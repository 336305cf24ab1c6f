// The stream guard refuses, before grpc-js or a handler sees them, requests that are not a gRPC
// call the listener can read (request-head-check.ts), and a message flagged compressed on a call
// that declares no encoding; each refusal's exact status, and that nothing reached the disk.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { UploadFileRequestSchema, WriteFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { RawGrpcConnection, collect, frame, type RawResult } from "../support/raw-grpc.js";
import { waitFor } from "../support/wait-for.js";

const write = "/toolhost.files.v1.FileTools/WriteFile";
const upload = "/toolhost.files.v1.FileTools/UploadFile";
const health = "/grpc.health.v1.Health/Check";
const UNKNOWN = 2;
const UNIMPLEMENTED = 12;
const INTERNAL = 13;

function writeRequest(path: string): Buffer {
  return Buffer.from(
    toBinary(
      WriteFileRequestSchema,
      create(WriteFileRequestSchema, { path, content: { case: "text", value: "written\n" } }),
    ),
  );
}

/** flagged frames a message with the given flag byte (1: compressed). */
function flagged(message: Uint8Array, flags: number): Buffer {
  const out = frame(message);
  out[0] = flags;
  return out;
}

describe("stream guard refusals (raw HTTP/2)", () => {
  let server: TestServer;
  let conn: RawGrpcConnection;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "keep.txt"), "original\n");
    conn = await RawGrpcConnection.open(server.address);
  });
  after(async () => {
    conn.close();
    await server.close();
  });

  /** send makes one call with extra headers and a body, and checks that the root did not change. */
  async function send(path: string, headers: Record<string, string>, body: Buffer): Promise<RawResult> {
    const before = (await readdir(server.root)).sort();
    const stream = conn.start(path, { headers });
    stream.end(body);
    const result = await collect(stream);
    // An upload refused after its header removes its temporary file as it unwinds.
    await waitFor(
      "the root as it was",
      async () => JSON.stringify((await readdir(server.root)).sort()) === JSON.stringify(before),
    );
    assert.equal(await readFile(join(server.root, "keep.txt"), "utf8"), "original\n");
    return result;
  }

  it("answers a DELETE with HTTP 405, allow POST and UNIMPLEMENTED", async () => {
    const r = await send(write, { ":method": "DELETE" }, frame(writeRequest("made.txt")));
    assert.equal(r.trailers[":status"], 405);
    assert.equal(r.trailers.allow, "POST");
    assert.equal(r.grpcStatus, UNIMPLEMENTED);
    assert.match(r.grpcMessage ?? "", /^HTTP method DELETE is not a gRPC call/);
    assert.deepEqual(r.messages, []);
  });

  it("answers content-type application/grpc+foo with UNIMPLEMENTED, not as protobuf", async () => {
    const r = await send(write, { "content-type": "application/grpc+foo" }, frame(writeRequest("made.txt")));
    assert.equal(r.trailers[":status"], 200);
    assert.equal(r.grpcStatus, UNIMPLEMENTED);
    assert.match(r.grpcMessage ?? "", /^content-type application\/grpc\+foo: this server reads protobuf messages only/);
  });

  it("answers a content-type that is not gRPC's with HTTP 415", async () => {
    const r = await send(write, { "content-type": "application/grpc-web" }, frame(writeRequest("made.txt")));
    assert.equal(r.trailers[":status"], 415);
    assert.equal(r.grpcStatus, UNKNOWN);
    assert.match(r.grpcMessage ?? "", /^content-type application\/grpc-web is not gRPC/);
  });

  it("accepts content-type application/grpc+proto with parameters", async () => {
    const r = await send(health, { "content-type": "application/grpc+proto; charset=utf-8" }, frame(new Uint8Array()));
    assert.equal(r.grpcStatus, 0);
    assert.equal(r.messages.length, 1);
  });

  it("answers grpc-encoding foo with UNIMPLEMENTED and grpc-accept-encoding", async () => {
    const r = await send(write, { "grpc-encoding": "foo" }, frame(writeRequest("made.txt")));
    assert.equal(r.grpcStatus, UNIMPLEMENTED);
    assert.equal(r.trailers["grpc-accept-encoding"], "identity,deflate,gzip");
    assert.match(r.grpcMessage ?? "", /^grpc-encoding foo is not supported/);
  });

  for (const headers of [{ "grpc-encoding": "identity" }, {}] as Record<string, string>[]) {
    it(`answers a message flagged compressed with INTERNAL (grpc-encoding ${headers["grpc-encoding"] ?? "absent"})`, async () => {
      const r = await send(write, headers, flagged(writeRequest("made.txt"), 1));
      assert.equal(r.grpcStatus, INTERNAL);
      assert.match(
        r.grpcMessage ?? "",
        /^A request message is flagged compressed, but the call declares no grpc-encoding/,
      );
    });
  }

  it("answers reserved flag bits with INTERNAL", async () => {
    const r = await send(write, {}, flagged(writeRequest("made.txt"), 2));
    assert.equal(r.grpcStatus, INTERNAL);
    assert.match(r.grpcMessage ?? "", /^A request message has reserved flag bits set \(flags 2\)/);
  });

  it("answers a compressed-flag message in the middle of an upload with INTERNAL; nothing is committed", async () => {
    const header = toBinary(
      UploadFileRequestSchema,
      create(UploadFileRequestSchema, { part: { case: "header", value: { path: "keep.txt" } } }),
    );
    const data = toBinary(
      UploadFileRequestSchema,
      create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.from("replaced\n") } }),
    );
    const r = await send(upload, {}, Buffer.concat([frame(header), flagged(data, 1)]));
    assert.equal(r.grpcStatus, INTERNAL);
    assert.match(r.grpcMessage ?? "", /^A request message is flagged compressed/);
  });

  it("stops a refused stream that keeps sending (RST_STREAM NO_ERROR) and serves the connection on", async () => {
    const stream = conn.start(write, { headers: { "grpc-encoding": "identity" } });
    stream.write(flagged(writeRequest("made.txt"), 1));
    const r = await collect(stream);
    assert.equal(r.grpcStatus, INTERNAL);
    assert.equal(r.rstCode, 0);
    const ok = await conn.call(health, frame(new Uint8Array()));
    assert.equal(ok.grpcStatus, 0);
    assert.equal(conn.closed, false);
  });
});
