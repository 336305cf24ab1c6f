import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import * as net from "node:net";
import { once } from "node:events";
import { HpackDecoder } from "../../clients/ts/src/transport/h2/hpack-decoder.js";
import { HpackEncoder, encodeHeaderPrefix } from "../../clients/ts/src/transport/h2/hpack-encoder.js";
import type { Field } from "../support/hpack-fixtures.js";
import { H2Peer } from "../support/hpack-h2-peer.js";

// Every assert.ok has a message: without one, assert reads the test's source to quote the
// expression, which under tsx's transform can take minutes.

/** sameFields asserts two header lists are equal, naming the first difference (deepEqual's diff of 20 KB strings is slow). */
function sameFields(actual: Field[] | undefined, expected: Field[]): void {
  const short = (f: Field | undefined) => JSON.stringify(f?.map((s) => (s.length > 40 ? `${s.slice(0, 40)}...(${s.length})` : s)));
  for (let i = 0; i < Math.max(actual?.length ?? 0, expected.length); i++) {
    const [a, e] = [actual?.[i], expected[i]];
    assert.ok(a?.[0] === e?.[0] && a?.[1] === e?.[1], `field ${i}: got ${short(a)}, expected ${short(e)}`);
  }
}

describe("HPACK against nghttp2 (node:http2's server)", () => {
  const seen: http2.IncomingHttpHeaders[] = [];
  const bin = Buffer.from(Array.from({ length: 200 }, (_, i) => i)).toString("base64");
  const responseHeaders = (i: number): Field[] => [
    [":status", "200"],
    ["content-type", "application/grpc"],
    ["grpc-encoding", "identity"],
    ["grpc-accept-encoding", "identity,deflate,gzip"],
    ["x-long", "l".repeat(1500)],
    ["x-huge", i % 2 ? "X".repeat(20_000) : "short"], // past 16 KiB (X has an 8-bit code): HEADERS + CONTINUATION
    ["x-trace-bin", bin],
    ["x-request", String(seen[seen.length - 1]?.["x-custom"])],
  ];
  const trailers = (i: number): Field[] => [
    ["grpc-status", String(i % 3)],
    ["grpc-message", `call ${i % 2} went %E2%9C%93 fine`],
  ];
  const server = http2.createServer();
  let calls = 0;
  server.on("stream", (stream, headers) => {
    seen.push(headers);
    const i = calls++;
    stream.respond(Object.fromEntries(responseHeaders(i)), { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers(Object.fromEntries(trailers(i))));
    stream.end("body");
  });
  after(() => server.close());

  for (const tableSize of [4096, 256]) {
    it(`exchanges 8 calls with our encoder's requests and decodes nghttp2's responses (header table ${tableSize})`, { timeout: 60_000 }, async () => {
      if (!server.listening) await once(server.listen(0, "127.0.0.1"), "listening");
      const port = (server.address() as net.AddressInfo).port;
      const socket = net.connect(port, "127.0.0.1");
      await once(socket, "connect");
      const decoder = new HpackDecoder(tableSize);
      const peer = new H2Peer(socket, decoder);
      try {
        socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        const settings = Buffer.alloc(tableSize === 4096 ? 0 : 6);
        if (tableSize !== 4096) settings.writeUInt16BE(0x1, 0), settings.writeUInt32BE(tableSize, 2);
        peer.frame(0x4, 0, 0, settings);
        const prefix = encodeHeaderPrefix([
          [":method", "POST"],
          [":scheme", "http"],
          [":authority", `127.0.0.1:${port}`],
        ]);
        const suffix = encodeHeaderPrefix([
          ["content-type", "application/grpc+proto"],
          ["te", "trailers"],
          ["user-agent", "toolhost-ts/0.1 hpack-test"],
        ]);
        const encoder = new HpackEncoder();
        const first = calls;
        for (let n = 0; n < 8; n++) {
          const stream = 1 + 2 * n;
          const block = encoder.encode(
            [
              [":path", `/toolhost.files.v1.Files/Read${n}`],
              ["grpc-timeout", `${n + 1}00m`],
              ["authorization", "Bearer secret-token"],
              ["x-custom", `value ${n} \u00e9\u00ff`],
              ["x-custom-bin", bin],
            ],
            prefix,
            suffix,
          );
          peer.frame(0x1, 0x5 /* END_STREAM | END_HEADERS */, stream, block);
          const [headers, trailerList] = await peer.ended(stream);
          const got = seen[seen.length - 1];
          assert.ok(got, "the server saw the request");
          assert.equal(got[":method"], "POST");
          assert.equal(got[":path"], `/toolhost.files.v1.Files/Read${n}`);
          assert.equal(got[":authority"], `127.0.0.1:${port}`);
          assert.equal(got["content-type"], "application/grpc+proto");
          assert.equal(got["te"], "trailers");
          assert.equal(got["grpc-timeout"], `${n + 1}00m`);
          assert.equal(got["authorization"], "Bearer secret-token");
          assert.equal(got["x-custom"], `value ${n} \u00e9\u00ff`);
          assert.equal(got["x-custom-bin"], bin);
          const i = first + n;
          sameFields(
            headers?.filter(([name]) => name !== "date"),
            responseHeaders(i).map(([k, v]) => [k, k === "x-request" ? `value ${n} \u00e9\u00ff` : v]),
          );
          sameFields(trailerList, trailers(i));
        }
        assert.ok(decoder.dynamicTable.length > 0, "nghttp2 used its dynamic table");
        assert.ok(peer.continuations > 0, "a block came in HEADERS + CONTINUATION");
        const sent = Buffer.concat(peer.blocks);
        assert.equal(sent.indexOf("identity,deflate,gzip"), -1, "nghttp2 Huffman-coded the values");
        if (tableSize === 4096) assert.ok(decoder.dynamicTable.some(([k, v]) => k === "x-long" && v.length === 1500), "x-long was indexed");
        if (tableSize === 256) assert.equal(peer.blocks[0]?.subarray(0, 3).toString("hex"), "3fe101", "a size update to 256 first");
        assert.ok(decoder.dynamicTableSize <= tableSize, `table size ${decoder.dynamicTableSize} within ${tableSize}`);
      } finally {
        socket.destroy();
      }
    });
  }
});
