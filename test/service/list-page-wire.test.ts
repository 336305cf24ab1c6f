import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { ListDirectoryResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import type { DirectoryEntryValue, ListPage } from "../../src/files/list-directory.js";
import { encodedReplyOf, hasReplyHeadroom, replyHeadroom, sendEncoded } from "../../src/service/reply-encoded-ahead.js";
import { encodeListPage } from "../../src/service/file-tools/list-page-wire.js";
import { fileTypeOf } from "../../src/service/file-tools/stat-file.js";
import { frameMessage } from "../../src/transport/grpc/frame-message.js";

/** reference is the page encoded the way the handler did before: a message init through protobuf-es. */
function reference(page: ListPage): Uint8Array {
  return toBinary(
    ListDirectoryResponseSchema,
    create(ListDirectoryResponseSchema, {
      entries: page.entries.map((entry) => ({
        path: entry.path,
        name: entry.name,
        type: fileTypeOf(entry.type),
        size: BigInt(entry.size),
        mode: entry.mode,
        modified: entry.modified === undefined ? undefined : timestampFromDate(entry.modified),
        symlink: entry.symlink,
        hardLinked: entry.hardLinked,
      })),
      nextPageToken: page.nextPageToken,
    }),
  );
}

// Names: ASCII, any UTF-16 (lone surrogates included, which both sides write as U+FFFD), long ones.
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
  fc.string({ minLength: 120, maxLength: 300 }),
  fc.constantFrom("", "\ud800", "a\udc00b", "é/ü", "😀"),
);

const entry: fc.Arbitrary<DirectoryEntryValue> = fc.record({
  path: text,
  name: text,
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
  symlink: fc.boolean(),
  hardLinked: fc.boolean(),
});

describe("encodeListPage", () => {
  it("writes the bytes toBinary writes, for random pages", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), text, (entries, nextPageToken) => {
        const page = { entries, nextPageToken };
        assert.deepEqual(new Uint8Array(encodeListPage(page)), reference(page));
      }),
      { seed: 31, numRuns: 2000 },
    );
  });

  it("writes an empty page as nothing", () => {
    assert.equal(encodeListPage({ entries: [], nextPageToken: "" }).byteLength, 0);
  });

  it("is framed in place: the gRPC prefix goes into the room in front of the bytes", () => {
    const page = {
      entries: [
        {
          path: "a/b.txt",
          name: "b.txt",
          type: "file",
          size: 5,
          mode: 0o644,
          modified: new Date(1_700_000_000_123),
          symlink: false,
          hardLinked: false,
        } satisfies DirectoryEntryValue,
      ],
      nextPageToken: "next",
    };
    const bytes = encodeListPage(page);
    const reply = sendEncoded({ nextPageToken: "next" }, bytes);
    assert.equal(encodedReplyOf(reply), bytes);
    assert.ok(hasReplyHeadroom(bytes));
    const { frame } = frameMessage(ListDirectoryResponseSchema, reply);
    assert.equal(frame.buffer, bytes.buffer, "the frame is the encoding's own buffer");
    assert.equal(frame.byteOffset, bytes.byteOffset - replyHeadroom);
    assert.equal(frame[0], 0);
    assert.equal(frame.readUInt32BE(1), bytes.byteLength);
    assert.deepEqual(new Uint8Array(frame.subarray(5)), reference(page));
  });
});
