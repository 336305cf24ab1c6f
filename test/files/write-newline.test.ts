import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { applyNewlineMode, lineEndingStyle, parseNewlineMode, toLf } from "../../src/files/write/newline.js";

describe("newline modes", () => {
  it("preserve keeps every line ending as sent", () => {
    assert.equal(applyNewlineMode("a\r\nb\nc\rd", "preserve"), "a\r\nb\nc\rd");
  });

  it("lf turns CRLF and lone CR into LF", () => {
    assert.equal(applyNewlineMode("a\r\nb\nc\rd\r\n", "lf"), "a\nb\nc\nd\n");
  });

  it("crlf turns every line ending into CRLF without doubling existing ones", () => {
    assert.equal(applyNewlineMode("a\r\nb\nc\rd\n", "crlf"), "a\r\nb\r\nc\r\nd\r\n");
  });

  it("parses mode names, unset meaning preserve", () => {
    assert.equal(parseNewlineMode(undefined, "x"), "preserve");
    assert.equal(parseNewlineMode("", "x"), "preserve");
    assert.equal(parseNewlineMode("LF", "x"), "lf");
    assert.equal(parseNewlineMode("crlf", "x"), "crlf");
  });

  it("refuses an unknown mode with INVALID_NEWLINE_MODE naming it and the path", () => {
    assert.throws(
      () => parseNewlineMode("invalid", "bad.txt"),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "INVALID_NEWLINE_MODE"));
        assert.equal(
          err.message,
          "Invalid newline mode 'invalid' for 'bad.txt': use NEWLINE_MODE_PRESERVE, NEWLINE_MODE_LF or NEWLINE_MODE_CRLF; nothing was written.",
        );
        return true;
      },
    );
  });

  it("tells a pure CRLF text from LF and mixed ones", () => {
    assert.equal(lineEndingStyle("a\r\nb\r\n"), "crlf");
    assert.equal(lineEndingStyle("a\nb\n"), "lf");
    assert.equal(lineEndingStyle("a\r\nb\n"), "lf");
    assert.equal(lineEndingStyle("\na\r\n"), "lf");
    assert.equal(lineEndingStyle("no newline"), "lf");
    assert.equal(toLf("x\r\ny\r"), "x\ny\n");
  });
});
