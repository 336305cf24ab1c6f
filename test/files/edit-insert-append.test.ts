import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { editFile } from "../../src/files/edit/edit-file.js";
import type { TextEdit } from "../../src/files/edit/edit-types.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

async function edited(content: string, edits: TextEdit[]): Promise<string> {
  const { root, sandbox } = await writeFixture();
  await writeFile(path.join(root, "f.txt"), content);
  await editFile(sandbox, { path: "f.txt", edits, maxEditBytes: 1 << 20 });
  return readFile(path.join(root, "f.txt"), "utf8");
}

const insert = (line: number, text: string): TextEdit => ({ kind: "insert", line, text });

describe("append edit", () => {
  it("adds text at the very end, exactly as given", async () => {
    assert.equal(await edited("a\nb\n", [{ kind: "append", text: "c\n" }]), "a\nb\nc\n");
    assert.equal(await edited("no newline", [{ kind: "append", text: " more" }]), "no newline more");
  });
});

describe("insert edit", () => {
  it("inserts before a 0-based line, adding a missing line ending", async () => {
    assert.equal(await edited("a\nb\nc\n", [insert(0, "first")]), "first\na\nb\nc\n");
    assert.equal(await edited("a\nb\nc\n", [insert(2, "x\ny\n")]), "a\nb\nx\ny\nc\n");
  });

  it("appends at line = line count, after a last line without its ending", async () => {
    assert.equal(await edited("a\nb\n", [insert(2, "c")]), "a\nb\nc\n");
    assert.equal(await edited("a\nb", [insert(2, "c")]), "a\nb\nc\n");
    assert.equal(await edited("", [insert(0, "only")]), "only\n");
  });

  it("refuses a line past the end with OUT_OF_RANGE, changing nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "f.txt"), "a\nb\n");
    const before = await snapshot(root);
    await assert.rejects(
      editFile(sandbox, { path: "f.txt", edits: [insert(3, "x")], maxEditBytes: 1 << 20 }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "OUT_OF_RANGE"));
        assert.equal(
          err.message,
          "Cannot insert before line 3 of 'f.txt' (the edit): the file has 2 lines; use a line from 0 to 2 (2 appends); nothing was changed.",
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });
});
