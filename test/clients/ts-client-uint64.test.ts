import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../clients/ts/src/create-client.js";
import { readBytes } from "../../clients/ts/src/read-file.js";
import { toSafeNumber, toUint64 } from "../../clients/ts/src/uint64.js";

describe("@toolhost/client 64-bit helpers", () => {
  it("takes safe non-negative integers and bigints, and refuses what would lose precision", () => {
    assert.equal(toUint64(0), 0n);
    assert.equal(toUint64(Number.MAX_SAFE_INTEGER), 9007199254740991n);
    assert.equal(toUint64(2n ** 64n - 1n), 18446744073709551615n);
    assert.throws(() => toUint64(2 ** 53, "byteOffset"), {
      name: "RangeError",
      message: /byteOffset 9007199254740992 is not a non-negative safe integer; pass a bigint/,
    });
    assert.throws(() => toUint64(-1), RangeError);
    assert.throws(() => toUint64(1.5), RangeError);
    assert.throws(() => toUint64(Number.NaN), RangeError);
    assert.throws(() => toUint64(2n ** 64n), RangeError);
    assert.throws(() => toUint64(-1n), RangeError);
    assert.equal(toSafeNumber(12n), 12);
    assert.throws(() => toSafeNumber(2n ** 53n), RangeError);
  });

  it("refuses an unsafe number before any call is made", async () => {
    // Port 1 has no server: a call would fail with UNAVAILABLE, not a RangeError.
    const { files } = createClient("127.0.0.1:1");
    await assert.rejects(readBytes(files, "a.bin", { byteOffset: 2 ** 60 }), RangeError);
  });
});
