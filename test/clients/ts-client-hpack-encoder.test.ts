import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HpackEncoder } from "../../clients/ts/src/transport/h2/hpack-encoder.js";
import { throwsHpack } from "../support/hpack-fixtures.js";

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
