// Review (edit5): StagedDescriptor counts an operation as in flight before starting it; when the
// fs call throws synchronously (argument validation: ERR_OUT_OF_RANGE, ERR_INVALID_ARG_TYPE) the
// count is never taken back, so close() waits forever: the staged temporary file is then neither
// closed nor removed and the write never answers. FileHandle rejects and closes normally.
import assert from "node:assert/strict";
import { mkdtempSync, openSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { StagedDescriptor } from "../../src/files/write/staged-descriptor.js";

describe("StagedDescriptor after an operation refused synchronously", () => {
  it("still closes", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "staged-throw-")), "t");
    const staged = new StagedDescriptor(openSync(file, "w"));
    await assert.rejects(staged.write(Buffer.alloc(3), 0, 10, 0), { code: "ERR_OUT_OF_RANGE" });
    const outcome = await Promise.race([
      staged.close().then(() => "closed"),
      new Promise((r) => setTimeout(() => r("close never settled"), 1000)),
    ]);
    assert.equal(outcome, "closed");
    assert.ok(existsSync(file));
  });
});
