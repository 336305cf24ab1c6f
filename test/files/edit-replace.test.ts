import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { editFile } from "../../src/files/edit/edit-file.js";
import type { TextEdit } from "../../src/files/edit/edit-types.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

const limit = 1024 * 1024;

async function edited(content: string, edits: TextEdit[]): Promise<{ text: string; replacements: number }> {
  const { root, sandbox } = await writeFixture();
  await writeFile(path.join(root, "edit.txt"), content);
  const result = await editFile(sandbox, { path: "edit.txt", edits, maxEditBytes: limit });
  return { text: await readFile(path.join(root, "edit.txt"), "utf8"), replacements: result.replacements };
}

/** refused runs an edit that must fail and proves the file was left byte for byte as it was. */
async function refused(content: string, edits: TextEdit[]): Promise<unknown> {
  const { root, sandbox } = await writeFixture();
  await writeFile(path.join(root, "edit.txt"), content);
  const before = await snapshot(root);
  const error = await editFile(sandbox, { path: "edit.txt", edits, maxEditBytes: limit }).then(
    () => assert.fail("the edit should have been refused"),
    (err: unknown) => err,
  );
  assert.deepEqual(await snapshot(root), before);
  return error;
}

const replace = (
  oldText: string,
  newText: string,
  more: Partial<Extract<TextEdit, { kind: "replace" }>> = {},
): TextEdit => ({ kind: "replace", oldText, newText, ...more });

describe("replace edit", () => {
  it("replaces the first occurrence by default", async () => {
    assert.deepEqual(await edited("foo bar foo", [replace("foo", "baz")]), { text: "baz bar foo", replacements: 1 });
  });

  it("replaces every occurrence with replace_all", async () => {
    assert.deepEqual(await edited("foo bar foo", [replace("foo", "baz", { replaceAll: true })]), {
      text: "baz bar baz",
      replacements: 2,
    });
  });

  it("replaces every occurrence when expected_replacements matches their count", async () => {
    assert.deepEqual(await edited("foo bar foo", [replace("foo", "baz", { expectedReplacements: 2 })]), {
      text: "baz bar baz",
      replacements: 2,
    });
    assert.deepEqual(await edited("foo bar", [replace("foo", "baz", { expectedReplacements: 1 })]), {
      text: "baz bar",
      replacements: 1,
    });
  });

  it("counts occurrences without overlap", async () => {
    assert.deepEqual(await edited("aaaa", [replace("aa", "b", { replaceAll: true })]), { text: "bb", replacements: 2 });
  });

  it("matches multi-line text and special characters literally", async () => {
    assert.deepEqual(await edited("a $& b\nline2\n", [replace("$& b\nline2", "$1 $$")]), {
      text: "a $1 $$\n",
      replacements: 1,
    });
  });

  it("fails with EDIT_TEXT_NOT_FOUND when the text is absent", async () => {
    const err = await refused("foo bar", [replace("notfound", "x")]);
    assert.ok(isToolhostError(err, "EDIT_TEXT_NOT_FOUND"));
    assert.equal(
      err.message,
      `Text to replace not found in 'edit.txt' (the edit): "notfound"; nothing was changed. Re-read the file and copy the text exactly, including whitespace.`,
    );
  });

  it("fails with EDIT_COUNT_MISMATCH naming both counts", async () => {
    const err = await refused("foo bar foo foo", [replace("foo", "baz", { expectedReplacements: 2 })]);
    assert.ok(isToolhostError(err, "EDIT_COUNT_MISMATCH"));
    assert.equal(
      err.message,
      `Expected 2 replacements but found 3 occurrences of "foo" in 'edit.txt' (the edit); nothing was changed. Make old_text more specific or set expected_replacements to 3.`,
    );
    assert.deepEqual(
      { expected: err.metadata["expected"], actual: err.metadata["actual"] },
      { expected: "2", actual: "3" },
    );
  });

  it("says expected and found when expected_replacements meets an absent text", async () => {
    const err = await refused("foo", [replace("bar", "x", { expectedReplacements: 1 })]);
    assert.ok(isToolhostError(err, "EDIT_TEXT_NOT_FOUND"));
    assert.match(err.message, /"bar" \(expected 1 replacements, found 0\); nothing was changed/);
  });

  it("refuses an empty old_text", async () => {
    const err = await refused("foo", [replace("", "x")]);
    assert.ok(isToolhostError(err, "INVALID_ARGUMENT"));
    assert.equal(
      err.message,
      "old_text of the edit on 'edit.txt' is empty; give the exact text to replace, or use an append or insert edit.",
    );
  });

  it("applies edits in order and all or nothing, naming the failing edit", async () => {
    assert.deepEqual(await edited("one two", [replace("one", "three"), replace("three two", "done")]), {
      text: "done",
      replacements: 2,
    });
    const err = await refused("one two", [replace("one", "1"), replace("missing", "x"), replace("two", "2")]);
    assert.ok(isToolhostError(err, "EDIT_TEXT_NOT_FOUND"));
    assert.match(err.message, /\(edit 2 of 3\)/);
  });
});
