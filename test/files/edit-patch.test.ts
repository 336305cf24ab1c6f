import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { editFile } from "../../src/files/edit/edit-file.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

async function patched(content: string, unifiedDiff: string): Promise<string> {
  const { root, sandbox } = await writeFixture();
  await writeFile(path.join(root, "p.txt"), content);
  await editFile(sandbox, { path: "p.txt", edits: [{ kind: "patch", unifiedDiff }], maxEditBytes: 1 << 20 });
  return readFile(path.join(root, "p.txt"), "utf8");
}

async function patchRefused(content: string, unifiedDiff: string): Promise<unknown> {
  const { root, sandbox } = await writeFixture();
  await writeFile(path.join(root, "p.txt"), content);
  const before = await snapshot(root);
  const err = await editFile(sandbox, {
    path: "p.txt",
    edits: [{ kind: "patch", unifiedDiff }],
    maxEditBytes: 1 << 20,
  }).then(
    () => assert.fail("the patch should have been refused"),
    (e: unknown) => e,
  );
  assert.deepEqual(await snapshot(root), before);
  return err;
}

const file = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

describe("patch edit", () => {
  it("applies a unified diff with headers", async () => {
    const diff = "--- a/p.txt\n+++ b/p.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    assert.equal(await patched(file, diff), file.replace("two", "TWO"));
  });

  it("applies a headerless diff with several hunks", async () => {
    const diff = "@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n@@ -9,2 +9,3 @@\n nine\n-ten\n+TEN\n+eleven\n";
    assert.equal(await patched(file, diff), file.replace("one", "ONE").replace("ten\n", "TEN\neleven\n"));
  });

  it("fails with PATCH_FAILED quoting the hunk that does not apply and the file's lines there", async () => {
    const diff = "@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n@@ -5,2 +5,2 @@\n-FIVE\n+5\n six\n";
    const err = await patchRefused(file, diff);
    assert.ok(isToolhostError(err, "PATCH_FAILED"));
    assert.equal(
      err.message,
      "Patch hunk 2 of 2 (the edit) does not apply to 'p.txt'; nothing was changed. The hunk:\n" +
        "@@ -5,2 +5,2 @@\n-FIVE\n+5\n six\n" +
        "The file has at line 5:\nfive\nsix\n" +
        "Re-read the file and regenerate the diff against its current content.",
    );
    assert.equal(err.metadata["hunk"], "2");
  });

  it("refuses a diff without hunks or for several files", async () => {
    const none = await patchRefused(file, "just some text\n");
    assert.ok(isToolhostError(none, "INVALID_ARGUMENT"));
    assert.equal(
      none.message,
      `unified_diff of the edit on 'p.txt' cannot be used: it has no "@@" hunks; nothing was changed.`,
    );
    const two = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-one\n+1\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-one\n+1\n";
    const several = await patchRefused(file, two);
    assert.ok(isToolhostError(several, "INVALID_ARGUMENT"));
    assert.match(several.message, /it changes 2 files; send one file's diff per EditFile call/);
  });

  it("refuses a malformed hunk", async () => {
    const err = await patchRefused(file, "@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n+extra\n");
    assert.ok(isToolhostError(err, "INVALID_ARGUMENT"));
    assert.match(
      err.message,
      /^unified_diff of the edit on 'p\.txt' cannot be used: it is not a well-formed unified diff \(Hunk at line 1 has more lines than expected/,
    );
  });
});
