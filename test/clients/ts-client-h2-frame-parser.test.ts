import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FrameParser } from "../../clients/ts/src/transport/h2/frame-parser.js";
import { h2, h2Frame, headerBlock, type RawFrame } from "../support/raw-h2-peer.js";
import { seededRandom } from "../support/seeded-random.js";

describe("FrameParser", () => {
  /** The frames, built by hand, and the bytes they make. */
  const frames: RawFrame[] = [
    { type: h2.type.settings, flags: 0, streamId: 0, payload: Buffer.from([0, 4, 0, 0, 0, 100, 0, 3, 0, 0, 0, 1]) },
    { type: h2.type.settings, flags: h2.flag.ack, streamId: 0, payload: Buffer.alloc(0) },
    { type: h2.type.headers, flags: h2.flag.endHeaders, streamId: 1, payload: headerBlock([[":status", "200"], ["content-type", "application/grpc"]]) },
    { type: h2.type.data, flags: 0, streamId: 1, payload: Buffer.alloc(0) },
    { type: h2.type.data, flags: 0, streamId: 1, payload: Buffer.from(Array.from({ length: 16_384 }, (_, i) => i % 251)) },
    { type: h2.type.data, flags: h2.flag.endStream, streamId: 3, payload: Buffer.from("x") },
    { type: h2.type.ping, flags: 0, streamId: 0, payload: Buffer.from("12345678") },
    { type: h2.type.windowUpdate, flags: 0, streamId: 0x7fff_ffff, payload: Buffer.from([0, 0, 1, 0]) },
    { type: 0xfa, flags: 0xff, streamId: 5, payload: Buffer.from("an unknown type") },
    { type: h2.type.goaway, flags: 0, streamId: 0, payload: Buffer.from([0, 0, 0, 3, 0, 0, 0, 0]) },
  ];
  const bytes = Buffer.concat([
    ...frames.map((f) => h2Frame(f.type, f.flags, f.streamId, f.payload)),
    // The reserved bit of the stream identifier is ignored (RFC 9113, section 4.1).
    Buffer.from([0, 0, 0, h2.type.data, 0, 0x80, 0, 0, 7]),
  ]);
  const expected = [...frames, { type: h2.type.data, flags: 0, streamId: 7, payload: Buffer.alloc(0) }].map(show);

  function show(f: RawFrame): string {
    return `${f.type}/${f.flags}/${f.streamId}/${f.payload.toString("hex")}`;
  }

  /** parse feeds `chunks` to a new FrameParser and lists the frames it hands on (copied: its views are only valid during the call). */
  function parse(chunks: Buffer[]): string[] {
    const seen: string[] = [];
    const parser = new FrameParser(16_384, (type, flags, streamId, payload) => seen.push(show({ type, flags, streamId, payload: Buffer.from(payload) })));
    for (const c of chunks) parser.push(Buffer.from(c)); // each chunk its own buffer, as a socket hands them
    return seen;
  }

  it("cuts the same frames out of the bytes however they are split into chunks", () => {
    assert.deepEqual(parse([bytes]), expected);
    for (let at = 0; at <= bytes.byteLength; at++) {
      const seen = parse([bytes.subarray(0, at), bytes.subarray(at)]);
      assert.deepEqual(seen, expected, `split at ${at}`);
    }
    const random = seededRandom(10);
    for (let run = 0; run < 300; run++) {
      const cuts = new Set<number>();
      const n = 1 + Math.floor(random() * (run % 3 === 0 ? 400 : 12));
      for (let i = 0; i < n; i++) cuts.add(Math.floor(random() * (bytes.byteLength + 1)));
      const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.byteLength];
      const chunks = points.slice(1).map((end, i) => bytes.subarray(points[i]!, end));
      assert.deepEqual(parse(chunks), expected, `run ${run}, cuts at ${[...cuts].sort((a, b) => a - b).join(",")}`);
    }
    // One byte at a time.
    assert.deepEqual(parse(Array.from(bytes, (b) => Buffer.from([b]))), expected);
  });

  it("refuses a frame longer than its maximum before its payload arrives", () => {
    const parser = new FrameParser(16_384, () => assert.fail("no frame may be handed on"));
    assert.throws(() => parser.push(Buffer.from([0x00, 0x40, 0x01, h2.type.data, 0, 0, 0, 0, 1])), (err: Error & { h2Code?: number }) => err.h2Code === 0x6);
  });
});
