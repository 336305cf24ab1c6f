import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import * as net from "node:net";
import { once } from "node:events";
import { HpackDecoder } from "../../clients/ts/src/transport/h2/hpack-decoder.js";
import { HpackEncoder, encodeHeaderPrefix } from "../../clients/ts/src/transport/h2/hpack-encoder.js";
import { HpackError } from "../../clients/ts/src/transport/h2/hpack-error.js";
import { huffmanDecode, huffmanEncode, huffmanEncodedLength } from "../../clients/ts/src/transport/h2/hpack-huffman.js";

type Field = [string, string];

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ""), "hex");

// Every assert.ok has a message: without one, assert reads the test's source to quote the
// expression, which under tsx's transform can take minutes.

/** throwsHpack asserts that fn throws an HpackError whose message contains `part`. */
function throwsHpack(fn: () => unknown, part: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof HpackError, `expected HpackError, got ${String(err)}`);
    assert.ok(err.message.includes(part), `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(part)}`);
    return true;
  });
}

/** sameFields asserts two header lists are equal, naming the first difference (deepEqual's diff of 20 KB strings is slow). */
function sameFields(actual: Field[] | undefined, expected: Field[]): void {
  const short = (f: Field | undefined) => JSON.stringify(f?.map((s) => (s.length > 40 ? `${s.slice(0, 40)}...(${s.length})` : s)));
  for (let i = 0; i < Math.max(actual?.length ?? 0, expected.length); i++) {
    const [a, e] = [actual?.[i], expected[i]];
    assert.ok(a?.[0] === e?.[0] && a?.[1] === e?.[1], `field ${i}: got ${short(a)}, expected ${short(e)}`);
  }
}

/** mulberry32 is a small seeded PRNG, so a failing fuzz case can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** RFC 7541 C.3-C.6: header blocks on one connection, the fields and the dynamic table (newest first) after each. */
const SERIES: { section: string; tableSize: number; steps: { hex: string; fields: Field[]; table: Field[]; size: number }[] }[] = [
  {
    section: "C.3",
    tableSize: 4096,
    steps: [
      {
        hex: "828684410f7777772e6578616d706c652e636f6d",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]],
        table: [[":authority", "www.example.com"]],
        size: 57,
      },
      {
        hex: "828684be58086e6f2d6361636865",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"], ["cache-control", "no-cache"]],
        table: [["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 110,
      },
      {
        hex: "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565",
        fields: [[":method", "GET"], [":scheme", "https"], [":path", "/index.html"], [":authority", "www.example.com"], ["custom-key", "custom-value"]],
        table: [["custom-key", "custom-value"], ["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 164,
      },
    ],
  },
  {
    section: "C.4",
    tableSize: 4096,
    steps: [
      {
        hex: "828684418cf1e3c2e5f23a6ba0ab90f4ff",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]],
        table: [[":authority", "www.example.com"]],
        size: 57,
      },
      {
        hex: "828684be5886a8eb10649cbf",
        fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"], ["cache-control", "no-cache"]],
        table: [["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 110,
      },
      {
        hex: "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf",
        fields: [[":method", "GET"], [":scheme", "https"], [":path", "/index.html"], [":authority", "www.example.com"], ["custom-key", "custom-value"]],
        table: [["custom-key", "custom-value"], ["cache-control", "no-cache"], [":authority", "www.example.com"]],
        size: 164,
      },
    ],
  },
  {
    section: "C.5",
    tableSize: 256,
    steps: [
      {
        hex: "4803333032580770726976617465611d4d6f6e2c203231204f637420323031332032303a31333a323120474d546e1768747470733a2f2f7777772e6578616d706c652e636f6d",
        fields: [[":status", "302"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"], [":status", "302"]],
        size: 222,
      },
      {
        hex: "4803333037c1c0bf",
        fields: [[":status", "307"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [[":status", "307"], ["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"]],
        size: 222,
      },
      {
        hex: "88c1611d4d6f6e2c203231204f637420323031332032303a31333a323220474d54c05a04677a69707738666f6f3d4153444a4b48514b425a584f5157454f50495541585157454f49553b206d61782d6167653d333630303b2076657273696f6e3d31",
        fields: [[":status", "200"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"], ["location", "https://www.example.com"], ["content-encoding", "gzip"], ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"]],
        table: [["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"], ["content-encoding", "gzip"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"]],
        size: 215,
      },
    ],
  },
  {
    section: "C.6",
    tableSize: 256,
    steps: [
      {
        hex: "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3",
        fields: [[":status", "302"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"], [":status", "302"]],
        size: 222,
      },
      {
        hex: "4883640effc1c0bf",
        fields: [[":status", "307"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]],
        table: [[":status", "307"], ["location", "https://www.example.com"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["cache-control", "private"]],
        size: 222,
      },
      {
        hex: "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007",
        fields: [[":status", "200"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"], ["location", "https://www.example.com"], ["content-encoding", "gzip"], ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"]],
        table: [["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"], ["content-encoding", "gzip"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"]],
        size: 215,
      },
    ],
  },
];

describe("HPACK decoder on RFC 7541 Appendix C", () => {
  it("decodes C.2.1-C.2.4, one field each, and indexes only C.2.1's", () => {
    const cases: [string, Field, Field[]][] = [
      ["400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", ["custom-key", "custom-header"], [["custom-key", "custom-header"]]],
      ["040c 2f73 616d 706c 652f 7061 7468", [":path", "/sample/path"], []],
      ["1008 7061 7373 776f 7264 0673 6563 7265 74", ["password", "secret"], []],
      ["82", [":method", "GET"], []],
    ];
    for (const [block, field, table] of cases) {
      const d = new HpackDecoder();
      assert.deepEqual(d.decode(hex(block)), [field]);
      assert.deepEqual(d.dynamicTable, table);
      assert.equal(d.dynamicTableSize, table.length ? 55 : 0);
    }
  });

  for (const { section, tableSize, steps } of SERIES) {
    it(`decodes ${section}'s ${steps.length} blocks with the dynamic table the RFC shows after each`, () => {
      const d = new HpackDecoder(tableSize);
      for (const step of steps) {
        assert.deepEqual(d.decode(hex(step.hex)), step.fields);
        assert.deepEqual(d.dynamicTable, step.table);
        assert.equal(d.dynamicTableSize, step.size);
      }
    });
  }

  it("Huffman-codes C.4's and C.6's strings as the RFC does, and decodes them back", () => {
    const cases: [string, string][] = [
      ["www.example.com", "f1e3c2e5f23a6ba0ab90f4ff"],
      ["no-cache", "a8eb10649cbf"],
      ["custom-key", "25a849e95ba97d7f"],
      ["custom-value", "25a849e95bb8e8b4bf"],
      ["302", "6402"],
      ["private", "aec3771a4b"],
      ["Mon, 21 Oct 2013 20:13:21 GMT", "d07abe941054d444a8200595040b8166e082a62d1bff"],
      ["https://www.example.com", "9d29ad171863c78f0b97c8e9ae82ae43d3"],
      ["foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1", "94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007"],
    ];
    for (const [text, code] of cases) {
      const out = Buffer.alloc(huffmanEncodedLength(text));
      assert.equal(huffmanEncode(text, out, 0), out.length);
      assert.equal(out.toString("hex"), code);
      assert.equal(huffmanDecode(out, 0, out.length), text);
    }
  });

  it("Huffman-codes every byte 0-255 and decodes it back, alone and in a run", () => {
    const all = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i));
    for (const text of [...all, all.join(""), all.reverse().join("")]) {
      const out = Buffer.alloc(huffmanEncodedLength(text) + 2);
      const end = huffmanEncode(text, out, 1);
      assert.equal(end, out.length - 1);
      assert.equal(huffmanDecode(out, 1, end), text);
    }
  });
});

/** H2Peer is a bare HTTP/2 client on a net.Socket: it writes frames and reassembles the header blocks it receives. */
class H2Peer {
  private pending = Buffer.alloc(0);
  private block: Buffer[] = [];
  /** Every header block received, as sent. */
  readonly blocks: Buffer[] = [];
  continuations = 0;
  private blockStream = 0;
  /** For each stream: its header lists (headers, then trailers) and whether it ended. */
  readonly streams = new Map<number, { lists: Field[][]; ended: boolean }>();
  private waiters: (() => void)[] = [];
  error: Error | undefined;

  constructor(
    readonly socket: net.Socket,
    readonly decoder: HpackDecoder,
  ) {
    socket.on("data", (chunk: Buffer) => {
      try {
        this.pending = Buffer.concat([this.pending, chunk]);
        this.parse();
      } catch (err) {
        this.error = err as Error;
      }
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("error", (err) => {
      this.error = err;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("close", () => {
      this.error ??= new Error("the server closed the connection");
      for (const w of this.waiters.splice(0)) w();
    });
  }

  frame(type: number, flags: number, stream: number, payload: Buffer): void {
    const head = Buffer.alloc(9);
    head.writeUIntBE(payload.length, 0, 3);
    head[3] = type;
    head[4] = flags;
    head.writeUInt32BE(stream, 5);
    this.socket.write(Buffer.concat([head, payload]));
  }

  private parse(): void {
    while (this.pending.length >= 9) {
      const length = this.pending.readUIntBE(0, 3);
      if (this.pending.length < 9 + length) return;
      const type = this.pending[3];
      const flags = this.pending[4] ?? 0;
      const stream = this.pending.readUInt32BE(5) & 0x7fffffff;
      let payload = this.pending.subarray(9, 9 + length);
      this.pending = this.pending.subarray(9 + length);
      const entry = () => {
        let s = this.streams.get(stream);
        if (!s) this.streams.set(stream, (s = { lists: [], ended: false }));
        return s;
      };
      if (type === 0x1 /* HEADERS */) {
        if (flags & 0x8) payload = payload.subarray(1, payload.length - (payload[0] ?? 0));
        if (flags & 0x20) payload = payload.subarray(5);
        this.block = [payload];
        this.blockStream = stream;
        if (flags & 0x1) entry().ended = true;
      } else if (type === 0x9 /* CONTINUATION */) {
        assert.equal(stream, this.blockStream);
        this.block.push(payload);
        this.continuations++;
      } else if (type === 0x0 /* DATA */) {
        if (flags & 0x1) entry().ended = true;
        continue;
      } else if (type === 0x4 /* SETTINGS */) {
        if (!(flags & 0x1)) this.frame(0x4, 0x1, 0, Buffer.alloc(0));
        continue;
      } else if (type === 0x3 || type === 0x7 /* RST_STREAM, GOAWAY */) {
        throw new Error(`peer sent frame type ${type}: ${payload.toString("hex")}`);
      } else {
        continue;
      }
      if (flags & 0x4 /* END_HEADERS */) {
        this.blocks.push(Buffer.concat(this.block));
        entry().lists.push(this.decoder.decode(Buffer.concat(this.block)));
      }
    }
  }

  async ended(stream: number): Promise<Field[][]> {
    for (;;) {
      if (this.error) throw this.error;
      const s = this.streams.get(stream);
      if (s?.ended && s.lists.length === 2) return s.lists;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
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

describe("HPACK decoder bounds and malformed blocks", () => {
  /** A block of every representation: indexed, the three literals with indexed and new names, Huffman and raw. */
  const mixed = (): Buffer =>
    Buffer.concat([
      hex("3f e1 1f"), // table size update to 4096
      hex(SERIES[3]?.steps[0]?.hex ?? ""),
      hex("1008 7061 7373 776f 7264 0673 6563 7265 74"),
      hex("040c 2f73 616d 706c 652f 7061 7468"),
      new HpackEncoder(true).encode([["x-long", "v".repeat(300)], ["content-type", "application/grpc"]]),
      hex("be bf 82"),
    ]);

  it("decodes every prefix of a valid block to a prefix of its fields or throws HpackError", () => {
    const full = new HpackDecoder().decode(mixed());
    assert.equal(full.length, 11);
    const block = mixed();
    let threw = 0;
    for (let k = 0; k <= block.length; k++) {
      try {
        const fields = new HpackDecoder().decode(block.subarray(0, k));
        assert.deepEqual(fields, full.slice(0, fields.length));
      } catch (err) {
        assert.ok(err instanceof HpackError, `prefix ${k}: ${String(err)}`);
        threw++;
      }
    }
    assert.ok(threw > block.length / 2, `${threw} of ${block.length + 1} prefixes threw`);
    throwsHpack(() => new HpackDecoder().decode(hex("0f")), "truncated in an integer");
    throwsHpack(() => new HpackDecoder().decode(hex("00")), "truncated before a string");
    throwsHpack(() => new HpackDecoder().decode(hex("00 05 61 62")), "string of 5 bytes is past the header block's end");
  });

  it("rejects index 0 and indexes past the table, in indexed fields and literal names", () => {
    throwsHpack(() => new HpackDecoder().decode(hex("80")), "header field index 0 is not allowed");
    throwsHpack(() => new HpackDecoder().decode(hex("be")), "header field index 62 is past the table's 61 entries");
    throwsHpack(() => new HpackDecoder().decode(hex("7f 00 01 61")), "index 63 is past");
    const d = new HpackDecoder();
    d.decode(hex(SERIES[0]?.steps[0]?.hex ?? "")); // one dynamic entry: 62 is valid, 63 is not
    assert.deepEqual(d.decode(hex("be")), [[":authority", "www.example.com"]]);
    throwsHpack(() => d.decode(hex("bf")), "index 63 is past the table's 62 entries");
  });

  it("bounds integers at 2^31 - 1 and 5 continuation bytes", () => {
    /** int encodes an indexed field's index with its 7-bit prefix. */
    const int = (value: number): Buffer => {
      const bytes = [0xff];
      for (let rest = value - 127; ; rest = Math.floor(rest / 128)) {
        if (rest < 128) return Buffer.from([...bytes, rest]);
        bytes.push((rest % 128) | 0x80);
      }
    };
    throwsHpack(() => new HpackDecoder().decode(int(2 ** 31 - 1)), "header field index 2147483647 is past");
    throwsHpack(() => new HpackDecoder().decode(int(2 ** 31)), "integer overflows 2^31 - 1");
    throwsHpack(() => new HpackDecoder().decode(hex("ff 80 80 80 80 00")), "header field index 127 is past");
    throwsHpack(() => new HpackDecoder().decode(hex("ff 80 80 80 80 80 00")), "integer has too many continuation bytes");
    throwsHpack(() => new HpackDecoder().decode(hex("00 7f ff ff ff ff 0f")), "integer overflows 2^31 - 1");
  });

  it("accepts table size updates at the block's start up to the limit, evicting, and rejects others", () => {
    const d = new HpackDecoder(4096);
    d.decode(hex(SERIES[0]?.steps[0]?.hex ?? ""));
    assert.deepEqual(d.decode(hex("3f e1 1f 20 82")), [[":method", "GET"]]); // 4096, then 0: the table is empty
    assert.deepEqual(d.dynamicTable, []);
    throwsHpack(() => d.decode(hex("3f e2 1f")), "dynamic table size update to 4097 exceeds the limit 4096");
    throwsHpack(() => new HpackDecoder().decode(hex("82 20")), "dynamic table size update after a header field");
    const small = new HpackDecoder(256);
    small.decode(hex("3f 31")); // 80 bytes: the C.3 entry (57) fits, a second does not
    small.decode(hex(SERIES[0]?.steps[0]?.hex ?? ""));
    assert.deepEqual(small.decode(hex("40 01 61 01 62")), [["a", "b"]]); // 34 bytes: evicts :authority
    assert.deepEqual(small.dynamicTable, [["a", "b"]]);
    assert.equal(small.dynamicTableSize, 34);
    const big = Buffer.concat([hex("40 01 61 30"), Buffer.alloc(48, 0x76)]); // 81 bytes: empties the table
    assert.deepEqual(small.decode(big), [["a", "v".repeat(48)]]);
    assert.deepEqual(small.dynamicTable, []);
    assert.equal(small.dynamicTableSize, 0);
  });

  it("rejects Huffman strings with EOS, padding past 7 bits, or padding that is not all ones", () => {
    throwsHpack(() => new HpackDecoder().decode(hex("00 01 61 84 ff ff ff ff")), "contains EOS");
    throwsHpack(() => new HpackDecoder().decode(hex("00 01 61 81 ff")), "more than 7 bits of padding");
    throwsHpack(() => new HpackDecoder().decode(hex("00 01 61 81 18")), "padding that is not all ones");
    assert.deepEqual(new HpackDecoder().decode(hex("00 01 61 81 1f")), [["a", "a"]]);
  });

  it("bounds the decoded header list size, also for repeated indexed fields", () => {
    const field = (n: number) => Buffer.concat([hex("00 01 78"), Buffer.from([n]), Buffer.alloc(n, 0x76)]);
    assert.equal(new HpackDecoder(4096, 100).decode(field(67)).length, 1); // 1 + 67 + 32 = 100
    throwsHpack(() => new HpackDecoder(4096, 100).decode(field(68)), "header list size exceeds the limit 100");
    // :method GET counts 42 bytes: 97 of them fit 4096, 98 do not
    assert.equal(new HpackDecoder().decode(Buffer.alloc(97, 0x82)).length, 97);
    throwsHpack(() => new HpackDecoder(4096, 4096).decode(Buffer.alloc(98, 0x82)), "header list size exceeds the limit 4096");
  });
});

describe("HPACK fuzzing", () => {
  /** decodeOrHpackError decodes `block`, allowing only HpackError; a fresh decoder after an error, as a connection would be closed. */
  const check = (d: HpackDecoder, block: Uint8Array): HpackDecoder => {
    try {
      const fields = d.decode(block);
      for (const [n, v] of fields) assert.ok(typeof n === "string" && typeof v === "string", "fields are strings");
      return d;
    } catch (err) {
      if (!(err instanceof HpackError)) throw new Error(`block ${Buffer.from(block).toString("hex")}: ${String(err)}`);
      return new HpackDecoder(256, 8192);
    }
  };

  it("throws only HpackError for random bytes and mutated valid blocks (seeded)", () => {
    const rnd = mulberry32(7541);
    const byte = () => Math.floor(rnd() * 256);
    let d = new HpackDecoder(256, 8192);
    for (let i = 0; i < 2000; i++) d = check(d, Buffer.from(Array.from({ length: Math.floor(rnd() * 48) }, byte)));
    const valid = SERIES.flatMap((s) => s.steps.map((step) => hex(step.hex)));
    valid.push(new HpackEncoder(true).encode([[":path", "/a/b"], ["x-k", "\u00ff".repeat(40)], ["te", "trailers"]]));
    for (let i = 0; i < 4000; i++) {
      const block = Buffer.from(valid[Math.floor(rnd() * valid.length)] ?? []);
      const bytes = [...block];
      for (let m = 1 + Math.floor(rnd() * 3); m > 0; m--) {
        const at = Math.floor(rnd() * (bytes.length + 1));
        const op = rnd();
        if (op < 0.4) bytes[at] = byte();
        else if (op < 0.6) bytes[at] = (bytes[at] ?? 0) ^ (1 << Math.floor(rnd() * 8));
        else if (op < 0.8) bytes.splice(at, 0, byte());
        else bytes.splice(at, 1 + Math.floor(rnd() * 4));
      }
      d = check(d, Buffer.from(bytes));
    }
  });

  it("round-trips random header lists through the encoder (raw, Huffman, with a prefix) and the decoder", () => {
    const rnd = mulberry32(7540);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)] ?? "a";
    const common: Field[] = [[":method", "POST"], [":path", "/"], ["content-type", "application/grpc"], ["te", "trailers"], ["accept", "x"]];
    const field = (): Field => {
      if (rnd() < 0.2) return common[Math.floor(rnd() * common.length)] ?? ["a", "b"];
      const name = Array.from({ length: 1 + Math.floor(rnd() * 20) }, () => pick("abcdefghijklmnopqrstuvwxyz0123456789-")).join("");
      const long = rnd() < 0.05 ? 200 : 30;
      const value = Array.from({ length: Math.floor(rnd() * long) }, () => {
        let c = 0;
        while (c === 0 || c === 10 || c === 13) c = Math.floor(rnd() * (rnd() < 0.7 ? 128 : 256));
        return String.fromCharCode(c);
      }).join("");
      return [name, value];
    };
    const raw = new HpackEncoder();
    const huff = new HpackEncoder(true);
    const d = new HpackDecoder();
    for (let i = 0; i < 1500; i++) {
      const ordered = (fields: Field[]): Field[] => [...fields.filter(([k]) => k.startsWith(":")), ...fields.filter(([k]) => !k.startsWith(":"))];
      const list = (n: number): Field[] => ordered(Array.from({ length: Math.floor(rnd() * n) }, field));
      const [head, mid, tail] = [list(4), list(8), list(4)];
      const all = ordered([...head, ...mid]);
      assert.deepEqual(d.decode(raw.encode(all)), all);
      assert.deepEqual(d.decode(huff.encode(mid, encodeHeaderPrefix(head), raw.encode(tail))), [...head, ...mid, ...tail]);
    }
    assert.deepEqual(d.dynamicTable, [], "the encoder never indexes");
  });
});

describe("HPACK encoder", () => {
  it("uses the static table: an exact pair is one byte, a known name an index, and authorization is never indexed", () => {
    const e = new HpackEncoder();
    assert.equal(e.encode([[":method", "POST"], ["content-type", "application/grpc"]]).toString("hex"), "83" + "0f1010" + Buffer.from("application/grpc").toString("hex"));
    assert.equal(e.encode([["authorization", "t"]]).toString("hex"), "1f08" + "0174");
    assert.equal(e.encode([["x", "y"]]).toString("hex"), "0001780179");
  });

  it("rejects names with uppercase or characters not in an HTTP/2 field name, and values with CR, LF or NUL", () => {
    const e = new HpackEncoder();
    for (const name of ["Content-Type", "", "x y", "x:y", ":Path", "x\r\ny", "\u00e9"]) {
      throwsHpack(() => e.encode([["ok", "v"], [name, "v"]]), `invalid header name ${JSON.stringify(name)}: HTTP/2 field names are lowercase tokens`);
    }
    throwsHpack(() => e.encode([["te", "trailers"], [":path", "/"]]), "pseudo-header :path after a regular header field");
    for (const value of ["a\r\nx-injected: 1", "a\nb", "a\rb", "a\0b", "\u0100"]) {
      throwsHpack(() => e.encode([["x-v", value]]), "invalid value for header x-v: it contains CR, LF, NUL or a char above U+00FF");
    }
  });
});
