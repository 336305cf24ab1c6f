import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { StatFileResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import type { PathStat } from "../../src/files/stat-path.js";
import { fileTypeOf } from "../../src/service/file-tools/file-type-of.js";
import { StatFileReply } from "../../src/service/file-tools/stat-file.js";
import { encodeStatReply } from "../../src/service/file-tools/stat-reply-wire.js";
import { encodedReplyOf, sendEncoded } from "../../src/service/reply-encoded-ahead.js";
import { frameMessage } from "../../src/transport/grpc/frame-message.js";

/** reference is the answer encoded the way the handler did before: a message init through protobuf-es. */
function reference(stat: PathStat): Uint8Array {
  return toBinary(
    StatFileResponseSchema,
    create(StatFileResponseSchema, {
      path: stat.path,
      type: fileTypeOf(stat.type),
      size: BigInt(stat.size),
      mode: stat.mode,
      modified: stat.modified === undefined ? undefined : timestampFromDate(stat.modified),
      sha256: stat.sha256,
      binary: stat.binary,
      symlink: stat.symlink,
      hardLinked: stat.hardLinked,
    }),
  );
}

// Paths: ASCII, any UTF-16 (lone surrogates included, which both sides write as U+FFFD), long ones.
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
  fc.string({ minLength: 120, maxLength: 300 }),
  fc.constantFrom("", "\ud800", "a\udc00b", "é/ü", "😀"),
);

const stat: fc.Arbitrary<PathStat> = fc.record({
  path: text,
  type: fc.constantFrom("file", "directory", "symlink", "other"),
  size: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 }), fc.maxSafeNat()),
  mode: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0o7777 })),
  modified: fc.option(
    fc.oneof(
      fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }),
      fc.constantFrom(new Date(0), new Date(-1), new Date(999), new Date(1000), new Date(-1000)),
    ),
    { nil: undefined },
  ),
  sha256: fc.oneof(fc.constant(""), fc.stringMatching(/^[0-9a-f]{64}$/)),
  binary: fc.boolean(),
  symlink: fc.boolean(),
  hardLinked: fc.boolean(),
});

describe("encodeStatReply", () => {
  it("writes the bytes toBinary writes, for random answers, and the reply object is the same message", () => {
    fc.assert(
      fc.property(stat, (s) => {
        const want = reference(s);
        assert.deepEqual(new Uint8Array(encodeStatReply(s)), want);
        // What CallTool reads of the reply: create() of it is the same message.
        assert.deepEqual(toBinary(StatFileResponseSchema, create(StatFileResponseSchema, new StatFileReply(s))), want);
      }),
      { seed: 31, numRuns: 2000 },
    );
  });

  it("is framed in place, in the room in front of the bytes", () => {
    const s: PathStat = {
      path: "small.txt",
      type: "file",
      size: 5536,
      mode: 0o644,
      modified: new Date(1_700_000_000_123),
      sha256: "",
      binary: false,
      symlink: false,
      hardLinked: false,
    };
    const bytes = encodeStatReply(s);
    const reply = sendEncoded(new StatFileReply(s), bytes);
    assert.equal(encodedReplyOf(reply), bytes);
    const { frame } = frameMessage(StatFileResponseSchema, reply);
    assert.equal(frame.buffer, bytes.buffer, "the frame is the encoding's own buffer");
    assert.equal(frame.readUInt32BE(1), bytes.byteLength);
    assert.deepEqual(new Uint8Array(frame.subarray(5)), reference(s));
  });
});
