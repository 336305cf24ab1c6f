import assert from "node:assert/strict";
import { link, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { expectToolhostError, snapshotTree, tempDir } from "../../sandbox/sandbox-fixture.js";
import { runSearch, searchRoot, writeTree } from "./search-fixture.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";

const paths = (run: { matches: { path: string }[] }): string[] => [...new Set(run.matches.map((m) => m.path))].sort();

describe("searchFiles: which files are searched", () => {
  it("respects .gitignore and .ignore (negation, folders, nested files) unless no_ignore", async () => {
    const { sandbox } = await searchRoot({
      ".gitignore": "*.log\nbuild/\n!keep.log\n",
      "a.log": "hit\n",
      "keep.log": "hit\n",
      "build/out.txt": "hit\n",
      "src/.ignore": "gen.txt\n",
      "src/gen.txt": "hit\n",
      "src/main.txt": "hit\n",
      "other/gen.txt": "hit\n",
    });
    assert.deepEqual(paths(await runSearch(sandbox, { pattern: "hit" })), [
      "keep.log",
      "other/gen.txt",
      "src/main.txt",
    ]);
    assert.deepEqual(paths(await runSearch(sandbox, { pattern: "hit", noIgnore: true })), [
      "a.log",
      "build/out.txt",
      "keep.log",
      "other/gen.txt",
      "src/gen.txt",
      "src/main.txt",
    ]);
  });

  it("applies the ignore files of the folders above the searched one, as git does", async () => {
    const { sandbox } = await searchRoot({
      ".gitignore": "*.log\n/src/gen/\n",
      "src/.ignore": "tmp.txt\n",
      "src/lib/a.log": "hit\n",
      "src/lib/tmp.txt": "hit\n",
      "src/lib/ok.txt": "hit\n",
      "src/gen/out.txt": "hit\n",
    });
    assert.deepEqual(paths(await runSearch(sandbox, { path: "src/lib", pattern: "hit" })), ["src/lib/ok.txt"]);
    assert.deepEqual(paths(await runSearch(sandbox, { path: "src", pattern: "hit" })), ["src/lib/ok.txt"]);
    assert.deepEqual(paths(await runSearch(sandbox, { path: "src/lib", pattern: "hit", noIgnore: true })), [
      "src/lib/a.log",
      "src/lib/ok.txt",
      "src/lib/tmp.txt",
    ]);
  });

  it("skips hidden files and folders unless include_hidden, and .git always", async () => {
    const { sandbox } = await searchRoot({
      ".env": "hit\n",
      ".hidden/a.txt": "hit\n",
      "v.txt": "hit\n",
      ".git/config": "hit\n",
    });
    assert.deepEqual(paths(await runSearch(sandbox, { pattern: "hit" })), ["v.txt"]);
    assert.deepEqual(paths(await runSearch(sandbox, { pattern: "hit", includeHidden: true })), [
      ".env",
      ".hidden/a.txt",
      "v.txt",
    ]);
  });

  it("skips binary files and files over max_file_size, counting them as skipped", async () => {
    const { sandbox } = await searchRoot({
      "bin.dat": Buffer.from([0x68, 0x69, 0x74, 0, 1, 2]),
      "photo.jpg": Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from("hit\n")]), // binary by its magic number alone
      "big.txt": `hit\n${"x".repeat(5000)}\n`,
      "ok.txt": "hit\n",
    });
    const run = await runSearch(sandbox, { pattern: "hit", maxFileSize: 1000 });
    assert.deepEqual(paths(run), ["ok.txt"]);
    assert.equal(run.summary.filesSkipped, 3);
    assert.equal(run.summary.filesScanned, 1);
  });

  it("lowers a max_file_size over the server's limit to it", async () => {
    const { sandbox } = await searchRoot({ "big.txt": `hit\n${"x".repeat(5000)}\n` });
    const run = await runSearch(sandbox, { pattern: "hit", maxFileSize: 1e9 }, { maxSearchFileBytes: 1000 });
    assert.equal(run.summary.filesSkipped, 1);
  });

  it("include and exclude globs, by name at any depth or by path", async () => {
    const { sandbox } = await searchRoot({
      "a.ts": "hit\n",
      "a.js": "hit\n",
      "src/b.ts": "hit\n",
      "src/vendor/c.ts": "hit\n",
      "test/d.ts": "hit\n",
    });
    assert.deepEqual(paths(await runSearch(sandbox, { pattern: "hit", include: ["*.ts"] })), [
      "a.ts",
      "src/b.ts",
      "src/vendor/c.ts",
      "test/d.ts",
    ]);
    assert.deepEqual(
      paths(await runSearch(sandbox, { pattern: "hit", include: ["*.ts"], exclude: ["vendor", "test/**"] })),
      ["a.ts", "src/b.ts"],
    );
    assert.deepEqual(paths(await runSearch(sandbox, { pattern: "hit", include: ["src/*.ts"] })), ["src/b.ts"]);
  });

  it("never follows symlinks (to files or folders), and skips hard-linked files", async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "secret.txt": "hit\n" });
    const { root, sandbox } = await searchRoot({ "in.txt": "hit\n" });
    await symlink(outside, path.join(root, "out-dir"));
    await symlink(path.join(outside, "secret.txt"), path.join(root, "out-file.txt"));
    await link(path.join(outside, "secret.txt"), path.join(root, "hard.txt"));
    const run = await runSearch(sandbox, { pattern: "hit" });
    assert.deepEqual(paths(run), ["in.txt"]);
    assert.equal(run.summary.filesSkipped, 1); // the hard link
    // Searched on its own (the one-file path), it is refused as ReadFile refuses it.
    await expectToolhostError(() => runSearch(sandbox, { path: "hard.txt", pattern: "hit" }), "PATH_TRAVERSAL", [
      '"hard.txt"',
      "2 hard links",
    ]);
  });

  it("searches hard-linked files, and their ignore files, under the sandbox's rules when hard links are allowed", async () => {
    const outside = await tempDir("outside-allowed");
    await writeTree(outside, { "shared.txt": "hit\n", "shared.ignore": "skipped.txt\n" });
    const { root } = await searchRoot({ "in.txt": "hit\n", "skipped.txt": "hit\n" });
    await link(path.join(outside, "shared.txt"), path.join(root, "hard.txt"));
    await link(path.join(outside, "shared.ignore"), path.join(root, ".ignore"));
    const refused = await runSearch(await createSandbox([{ path: root, readOnly: false }]), { pattern: "hit" });
    assert.deepEqual(
      paths(refused),
      ["in.txt", "skipped.txt"],
      "a hard-linked .ignore is not applied, a hard-linked file not read",
    );
    const allowed = await createSandbox([{ path: root, readOnly: false }], { allowHardLinks: true });
    const run = await runSearch(allowed, { pattern: "hit" });
    assert.deepEqual(paths(run), ["hard.txt", "in.txt"]);
    assert.equal(run.summary.filesSkipped, 0);
    assert.deepEqual(paths(await runSearch(allowed, { path: "hard.txt", pattern: "hit" })), ["hard.txt"]);
  });
});

describe("searchFiles: refused requests", () => {
  it("refuses an empty pattern, a malformed regex, a too-long pattern and too-complex globs, changing nothing", async () => {
    const { root, sandbox } = await searchRoot({ "a.txt": "hit\n" });
    const before = await snapshotTree(root);
    await expectToolhostError(() => runSearch(sandbox, { pattern: "" }), "INVALID_ARGUMENT", ["pattern", "empty"]);
    await expectToolhostError(() => runSearch(sandbox, { pattern: "(unclosed", regex: true }), "INVALID_ARGUMENT", [
      "not a valid regular expression",
    ]);
    await expectToolhostError(() => runSearch(sandbox, { pattern: "x".repeat(1001) }), "PATTERN_TOO_COMPLEX", [
      "1001",
      "1000",
    ]);
    await expectToolhostError(
      () => runSearch(sandbox, { pattern: "x", include: ["a".repeat(300)] }),
      "PATTERN_TOO_COMPLEX",
      ["include", "256"],
    );
    await expectToolhostError(
      () => runSearch(sandbox, { pattern: "x", exclude: ["{a,{b,{c,{d,{e,{f,{g,{h,{i,j}}}}}}}}}"] }),
      "PATTERN_TOO_COMPLEX",
      ["exclude", "brace"],
    );
    await expectToolhostError(
      () => runSearch(sandbox, { pattern: "x", include: Array.from({ length: 65 }, (_, i) => `*.${i}`) }),
      "PATTERN_TOO_COMPLEX",
      ["65 globs"],
    );
    await expectToolhostError(() => runSearch(sandbox, { pattern: "x", contextBefore: 21 }), "INVALID_ARGUMENT", [
      "context_before",
      "20",
    ]);
    await expectToolhostError(() => runSearch(sandbox, { pattern: "x", maxLineLength: 10_001 }), "INVALID_ARGUMENT", [
      "max_line_length",
    ]);
    assert.deepEqual(await snapshotTree(root), before);
  });

  it("refuses paths outside the roots and missing paths", async () => {
    const { sandbox } = await searchRoot({ "a.txt": "hit\n" });
    await expectToolhostError(() => runSearch(sandbox, { path: "../", pattern: "x" }), "PATH_TRAVERSAL", ["../"]);
    await expectToolhostError(() => runSearch(sandbox, { path: "nope", pattern: "x" }), "NOT_FOUND", ["nope"]);
  });
});
