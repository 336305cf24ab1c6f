import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { EditFileResponseSchema } from "../../gen/ts/toolhost/files/v1/edit_pb.js";
import { encodedReplyOf, encodeReplyAhead } from "../../src/service/reply-encoded-ahead.js";
import { encodeMessage } from "../../src/transport/message-codec.js";

describe("replies encoded ahead", () => {
  it("are sent as the bytes encoded ahead, which are the reply's encoding, and cannot change after", () => {
    const reply = encodeReplyAhead(
      EditFileResponseSchema,
      create(EditFileResponseSchema, { replacements: 1, diff: "--- a/x\n", sha256: "ab", size: 7n, applied: true }),
    );
    const ahead = encodedReplyOf(reply);
    assert.ok(ahead !== undefined);
    const sent = encodeMessage(EditFileResponseSchema, reply);
    assert.equal(sent.buffer, ahead.buffer, "the transport sends the bytes made ahead, not a new encoding");
    assert.deepEqual(
      new Uint8Array(sent),
      toBinary(
        EditFileResponseSchema,
        create(EditFileResponseSchema, { replacements: 1, diff: "--- a/x\n", sha256: "ab", size: 7n, applied: true }),
      ),
    );
    assert.throws(() => {
      (reply as { diff: string }).diff = "changed";
    }, TypeError);
  });

  it("any other reply is encoded when it is sent", () => {
    const reply = create(EditFileResponseSchema, { replacements: 2 });
    assert.equal(encodedReplyOf(reply), undefined);
    assert.deepEqual(
      new Uint8Array(encodeMessage(EditFileResponseSchema, reply)),
      toBinary(EditFileResponseSchema, reply),
    );
  });
});
