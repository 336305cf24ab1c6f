import assert from "node:assert/strict";
import { chmod, lstat, mkdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { editFile, type EditFileOptions } from "../../src/files/edit/edit-file.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

const limit = 1 << 20;

/** refusedWith runs an edit that must fail with `reason` and proves nothing on disk changed. */
async function refusedWith(
  root: string,
  run: () => Promise<unknown>,
  reason: Parameters<typeof isToolhostError>[1],
): Promise<string> {
  const before = await snapshot(root);
  const err = await run().then(
    () => assert.fail("the edit should have been refused"),
    (e: unknown) => e,
  );
  assert.ok(isToolhostError(err, reason), `expected ${reason}, got ${String(err)}`);
  assert.deepEqual(await snapshot(root), before);
  return err.message;
}

describe("editFile", () => {
  it("returns the unified diff, hashes and size of an applied edit", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "a\nb\nc\n");
    const result = await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "b", newText: "B" }],
      maxEditBytes: limit,
    });
    assert.deepEqual(result, {
      replacements: 1,
      diff: "--- a/d.txt\n+++ b/d.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
      diffTruncated: false,
      sha256: sha256Hex("a\nB\nc\n"),
      size: 6,
      applied: true,
      previousSha256: sha256Hex("a\nb\nc\n"),
    });
  });

  it("dry_run returns the diff and writes nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "hello\n");
    const before = await snapshot(root);
    const result = await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "append", text: "world\n" }],
      dryRun: true,
      maxEditBytes: limit,
    });
    assert.equal(result.applied, false);
    assert.equal(result.diff, "--- a/d.txt\n+++ b/d.txt\n@@ -1,1 +1,2 @@\n hello\n+world\n");
    assert.equal(result.sha256, sha256Hex("hello\nworld\n"));
    assert.deepEqual(await snapshot(root), before);
  });

  it("does not write when the edits change nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "d.txt"), "same");
    const result = await editFile(sandbox, {
      path: "d.txt",
      edits: [{ kind: "replace", oldText: "same", newText: "same" }],
      maxEditBytes: limit,
    });
    assert.deepEqual(
      { applied: result.applied, diff: result.diff, replacements: result.replacements },
      { applied: false, diff: "", replacements: 1 },
    );
  });

  it("keeps the file's mode", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "perm.txt"), "original");
    await chmod(path.join(root, "perm.txt"), 0o755);
    await editFile(sandbox, {
      path: "perm.txt",
      edits: [{ kind: "replace", oldText: "original", newText: "modified" }],
      maxEditBytes: limit,
    });
    assert.equal(await readFile(path.join(root, "perm.txt"), "utf8"), "modified");
    assert.equal((await stat(path.join(root, "perm.txt"))).mode & 0o7777, 0o755);
  });

  it("matches edits written with \\n in a CRLF file and writes the result back in CRLF", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    const result = await editFile(sandbox, {
      path: "win.txt",
      edits: [
        { kind: "replace", oldText: "one\ntwo", newText: "1\n2" },
        { kind: "insert", line: 3, text: "four" },
        { kind: "patch", unifiedDiff: "@@ -3,2 +3,2 @@\n three\n-four\n+FOUR\n" },
      ],
      maxEditBytes: limit,
    });
    assert.equal(await readFile(path.join(root, "win.txt"), "utf8"), "1\r\n2\r\nthree\r\nFOUR\r\n");
    assert.doesNotMatch(result.diff, /\r/);
  });

  // A file that mixes endings: every line keeps its own, a new line takes the ending of the line it
  // replaces or of its neighbour above (ApplyPatch follows the same rule), and edits written with
  // "\n" match across CRLF lines.
  const mixed: [string, string, EditFileOptions["edits"], string][] = [
    [
      "a replace keeps every line's ending",
      "a\r\nb\nc\r\n",
      [{ kind: "replace", oldText: "b", newText: "B" }],
      "a\r\nB\nc\r\n",
    ],
    [
      "a replace across a CRLF line break matches",
      "one\r\ntwo\nthree\r\nfour\n",
      [{ kind: "replace", oldText: "two\nthree", newText: "two\nTHREE" }],
      "one\r\ntwo\nTHREE\r\nfour\n",
    ],
    [
      "an insert takes the ending of the line above",
      "a\r\nb\nc\r\n",
      [{ kind: "insert", line: 1, text: "new" }],
      "a\r\nnew\r\nb\nc\r\n",
    ],
    [
      "an insert at the top takes the ending of the line below",
      "a\nb\r\n",
      [{ kind: "insert", line: 0, text: "new" }],
      "new\na\nb\r\n",
    ],
    [
      "a replace that adds lines gives them their neighbours' ending",
      "x\r\ny\nz\r\n",
      [{ kind: "replace", oldText: "z", newText: "z1\nz2" }],
      "x\r\ny\nz1\r\nz2\r\n",
    ],
    [
      "a unified diff written with \\n applies",
      "one\r\ntwo\nthree\r\nfour\n",
      [{ kind: "patch", unifiedDiff: "@@ -2,3 +2,3 @@\n two\n-three\n+3\n four\n" }],
      "one\r\ntwo\n3\r\nfour\n",
    ],
    [
      "an edit elsewhere leaves a last line without newline so",
      "a\r\nb\nc",
      [{ kind: "replace", oldText: "a", newText: "A" }],
      "A\r\nb\nc",
    ],
    [
      "a lone CR inside a line survives",
      "a\rb\r\nc\n",
      [{ kind: "replace", oldText: "c", newText: "C" }],
      "a\rb\r\nC\n",
    ],
  ];
  for (const [title, before, edits, after] of mixed) {
    it(`mixed line endings: ${title}`, async () => {
      const { root, sandbox } = await writeFixture();
      await writeFile(path.join(root, "mixed.txt"), before);
      await editFile(sandbox, { path: "mixed.txt", edits, maxEditBytes: limit });
      assert.equal(await readFile(path.join(root, "mixed.txt"), "utf8"), after);
    });
  }

  it("mixed line endings: a result over the limit with its CRLFs counted is refused", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "mixed.txt"), "a\r\nb\n");
    const message = await refusedWith(
      root,
      () =>
        editFile(sandbox, {
          path: "mixed.txt",
          edits: [{ kind: "replace", oldText: "a", newText: "a\na\na" }],
          maxEditBytes: 10,
        }),
      "TOO_LARGE",
    );
    assert.match(message, /11 bytes, over the limit of 10/);
  });

  it("keeps a UTF-8 byte order mark and does not let edits see it", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(
      path.join(root, "bom.txt"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("first\n")]),
    );
    await editFile(sandbox, {
      path: "bom.txt",
      edits: [{ kind: "insert", line: 0, text: "zeroth" }],
      maxEditBytes: limit,
    });
    assert.deepEqual(
      await readFile(path.join(root, "bom.txt")),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("zeroth\nfirst\n")]),
    );
  });

  it("honours if_sha256, naming both hashes when it fails", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "g.txt"), "v1");
    const edit = (ifSha256: string): EditFileOptions => ({
      path: "g.txt",
      edits: [{ kind: "append", text: "+" }],
      ifSha256,
      maxEditBytes: limit,
    });
    await editFile(sandbox, edit(sha256Hex("v1")));
    const message = await refusedWith(root, () => editFile(sandbox, edit(sha256Hex("v1"))), "PRECONDITION_FAILED");
    assert.equal(
      message,
      `Precondition failed for 'g.txt': if_sha256 expected sha256 ${sha256Hex("v1")} but the current content has sha256 ${sha256Hex("v1+")}; nothing was changed. Re-read the file and retry.`,
    );
  });

  it("refuses a binary file and invalid UTF-8", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
    await writeFile(path.join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const edits = [{ kind: "append", text: "x" } as const];
    assert.equal(
      await refusedWith(
        root,
        () => editFile(sandbox, { path: "image.png", edits, maxEditBytes: limit }),
        "BINARY_FILE",
      ),
      "Binary file detected: 'image.png' cannot be edited as text because it starts like a PNG image; nothing was changed. Replace it whole with WriteFile or UploadFile instead.",
    );
    assert.match(
      await refusedWith(
        root,
        () => editFile(sandbox, { path: "latin1.txt", edits, maxEditBytes: limit }),
        "BINARY_FILE",
      ),
      /^Binary file detected: 'latin1\.txt' cannot be edited as text because it is not valid UTF-8;/,
    );
  });

  it("refuses a file over maxEditBytes with its size and the limit", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "big.txt"), "x".repeat(101));
    assert.equal(
      await refusedWith(
        root,
        () => editFile(sandbox, { path: "big.txt", edits: [{ kind: "append", text: "y" }], maxEditBytes: 100 }),
        "TOO_LARGE",
      ),
      "'big.txt' is too large to edit: 101 bytes, over the limit of 100 bytes; replace it whole with WriteFile or UploadFile instead.",
    );
  });

  it("refuses a missing file, an empty edit list, a directory, traversal and read-only", async () => {
    const { root, sandbox } = await writeFixture();
    await mkdir(path.join(root, "mydir"));
    const edits = [{ kind: "replace", oldText: "a", newText: "b" } as const];
    assert.match(
      await refusedWith(root, () => editFile(sandbox, { path: "ghost.txt", edits, maxEditBytes: limit }), "NOT_FOUND"),
      /not found/,
    );
    assert.equal(
      await refusedWith(
        root,
        () => editFile(sandbox, { path: "x.txt", edits: [], maxEditBytes: limit }),
        "INVALID_ARGUMENT",
      ),
      "EditFile on 'x.txt' has no edits; send at least one replace, append, insert or patch edit.",
    );
    assert.match(
      await refusedWith(
        root,
        () => editFile(sandbox, { path: "mydir", edits, maxEditBytes: limit }),
        "NOT_A_REGULAR_FILE",
      ),
      /Not a regular file/,
    );
    const traversal = await refusedWith(
      root,
      () => editFile(sandbox, { path: "../evil.txt", edits, maxEditBytes: limit }),
      "PATH_TRAVERSAL",
    );
    assert.ok(traversal.includes("traversal") && traversal.includes("../evil.txt"));
    const ro = await writeFixture({ readOnly: true });
    await writeFile(path.join(ro.root, "a.txt"), "a");
    for (const dryRun of [false, true]) {
      assert.match(
        await refusedWith(
          ro.root,
          () => editFile(ro.sandbox, { path: "a.txt", edits, dryRun, maxEditBytes: limit }),
          "READ_ONLY",
        ),
        /read-only/,
      );
    }
  });

  it("edits through a symlink inside the roots, which stays a link", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "target.txt"), "old text");
    await symlink("target.txt", path.join(root, "link.txt"));
    await editFile(sandbox, {
      path: "link.txt",
      edits: [{ kind: "replace", oldText: "old", newText: "new" }],
      maxEditBytes: limit,
    });
    assert.equal(await readFile(path.join(root, "target.txt"), "utf8"), "new text");
    assert.ok((await lstat(path.join(root, "link.txt"))).isSymbolicLink());
    assert.equal(await readlink(path.join(root, "link.txt")), "target.txt");
  });

  it("loses no update when 32 edits of one file run at once", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "log.txt"), "");
    await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        editFile(sandbox, { path: "log.txt", edits: [{ kind: "append", text: `line ${i}\n` }], maxEditBytes: limit }),
      ),
    );
    const lines = (await readFile(path.join(root, "log.txt"), "utf8")).trimEnd().split("\n").sort();
    assert.deepEqual(lines, Array.from({ length: 32 }, (_, i) => `line ${i}`).sort());
  });
});
