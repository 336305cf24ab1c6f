import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { textOf } from "../../../src/mcp/skills/skill-mime-type.js";

// A skill file is answered as text only when JSON carries it at about its size: C0 controls
// other than tab, line feed, form feed and carriage return are six bytes each ("\u0001").

describe("textOf", () => {
  it("is the text of UTF-8 with tabs, line feeds, form feeds and carriage returns", () => {
    assert.equal(textOf(Buffer.from("a\tb\r\n\fé\n")), "a\tb\r\n\fé\n");
  });

  it("is undefined (a blob) for NUL, another C0 control, or bytes that are not UTF-8", () => {
    for (const bytes of [Buffer.from("a\0b"), Buffer.from("\x1b[31mred"), Buffer.alloc(1024, 1), Buffer.from([0xc3])]) {
      assert.equal(textOf(bytes), undefined, JSON.stringify(bytes.subarray(0, 8).toString("latin1")));
    }
  });

  it("keeps a blob of control bytes within four thirds of its size once JSON-encoded", () => {
    const bytes = Buffer.alloc(3 * 1024, 1);
    assert.equal(textOf(bytes), undefined);
    assert.equal(JSON.stringify(bytes.toString("base64")).length, 4 * 1024 + 2);
  });
});
