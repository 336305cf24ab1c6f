import assert from "node:assert/strict";
import { chmod, lstat, mkdir, readFile, readlink, stat, symlink, writeFile as fsWriteFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { writeFile } from "../../src/files/write/write-file.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

const text = (t: string) => ({ text: t });

describe("writeFile", () => {
  it("creates a new file and reports created, size and hash", async () => {
    const { root, sandbox } = await writeFixture();
    const result = await writeFile(sandbox, { path: "new.txt", content: text("created") });
    assert.deepEqual(result, { created: true, size: 7, sha256: sha256Hex("created"), previousSha256: "" });
    assert.equal(await readFile(path.join(root, "new.txt"), "utf8"), "created");
    assert.equal((await stat(path.join(root, "new.txt"))).mode & 0o777, 0o644 & ~process.umask());
  });

  it("overwrites an existing file, reporting the hash it replaced and keeping its mode", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "existing.txt"), "old");
    await chmod(path.join(root, "existing.txt"), 0o755);
    const result = await writeFile(sandbox, { path: "existing.txt", content: text("new"), mode: 0o600 });
    assert.deepEqual(result, { created: false, size: 3, sha256: sha256Hex("new"), previousSha256: sha256Hex("old") });
    assert.equal(await readFile(path.join(root, "existing.txt"), "utf8"), "new");
    assert.equal((await stat(path.join(root, "existing.txt"))).mode & 0o777, 0o755);
  });

  it("creates parent directories unless create_parents is false", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(sandbox, { path: "sub/dir/file.txt", content: text("nested") });
    assert.equal(await readFile(path.join(root, "sub/dir/file.txt"), "utf8"), "nested");
    const before = await snapshot(root);
    await assert.rejects(
      writeFile(sandbox, { path: "other/file.txt", content: text("x"), createParents: false }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "NOT_FOUND"));
        assert.equal(
          err.message,
          "Cannot write 'other/file.txt': a parent directory was not found; create it or set create_parents.",
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("applies the newline mode to text and writes bytes as sent", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(sandbox, { path: "lf.txt", content: text("a\r\nb\r\n"), newlineMode: "lf" });
    await writeFile(sandbox, { path: "crlf.txt", content: text("a\nb\n"), newlineMode: "crlf" });
    await writeFile(sandbox, { path: "keep.txt", content: text("a\r\nb\n") });
    await writeFile(sandbox, { path: "raw.bin", content: { data: Buffer.from("a\nb\0") }, newlineMode: "crlf" });
    assert.equal(await readFile(path.join(root, "lf.txt"), "utf8"), "a\nb\n");
    assert.equal(await readFile(path.join(root, "crlf.txt"), "utf8"), "a\r\nb\r\n");
    assert.equal(await readFile(path.join(root, "keep.txt"), "utf8"), "a\r\nb\n");
    assert.deepEqual(await readFile(path.join(root, "raw.bin")), Buffer.from("a\nb\0"));
  });

  it("refuses an unknown newline mode and writes nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await assert.rejects(
      writeFile(sandbox, { path: "bad.txt", content: text("test"), newlineMode: "invalid" }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "INVALID_NEWLINE_MODE"));
        assert.match(err.message, /^Invalid newline mode 'invalid' for 'bad\.txt'/);
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), {});
  });

  it("writes when if_sha256 matches and refuses with both hashes when it does not", async () => {
    const { root, sandbox } = await writeFixture();
    await fsWriteFile(path.join(root, "g.txt"), "v1");
    await writeFile(sandbox, { path: "g.txt", content: text("v2"), ifSha256: sha256Hex("v1") });
    const before = await snapshot(root);
    await assert.rejects(
      writeFile(sandbox, { path: "g.txt", content: text("v3"), ifSha256: sha256Hex("v1") }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "PRECONDITION_FAILED"));
        assert.equal(
          err.message,
          `Precondition failed for 'g.txt': if_sha256 expected sha256 ${sha256Hex("v1")} but the current content has sha256 ${sha256Hex("v2")}; nothing was changed. Re-read the file and retry.`,
        );
        return true;
      },
    );
    await assert.rejects(
      writeFile(sandbox, { path: "absent.txt", content: text("x"), ifSha256: sha256Hex("v1").toUpperCase() }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "PRECONDITION_FAILED"));
        assert.match(
          err.message,
          /expected sha256 [0-9a-f]{64} but the current content has sha256 none \(the file does not exist\)/,
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("honours must_not_exist", async () => {
    const { root, sandbox } = await writeFixture();
    assert.equal(
      (await writeFile(sandbox, { path: "once.txt", content: text("first"), mustNotExist: true })).created,
      true,
    );
    const before = await snapshot(root);
    await assert.rejects(
      writeFile(sandbox, { path: "once.txt", content: text("second"), mustNotExist: true }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "PRECONDITION_FAILED"));
        assert.equal(
          err.message,
          `Precondition failed for 'once.txt': must_not_exist is set (expected sha256: none) but the file exists with sha256 ${sha256Hex("first")}; nothing was changed. Choose another path or drop must_not_exist.`,
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("refuses malformed guards and modes before touching anything", async () => {
    const { root, sandbox } = await writeFixture();
    const cases: [Parameters<typeof writeFile>[1], RegExp][] = [
      [
        { path: "a.txt", content: text("x"), ifSha256: "abc" },
        /^if_sha256 must be a SHA-256 as 64 hex digits, got 'abc'/,
      ],
      [
        { path: "a.txt", content: text("x"), ifSha256: sha256Hex("x"), mustNotExist: true },
        /^if_sha256 and must_not_exist exclude each other/,
      ],
      [
        { path: "a.txt", content: text("x"), mode: 0o4755 },
        /^mode 2541 \(0o4755\) for 'a\.txt' is not permission bits between 0 and 0o777/,
      ],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(
        writeFile(sandbox, options),
        (err: unknown) => isToolhostError(err, "INVALID_ARGUMENT") && message.test(err.message),
      );
    }
    assert.deepEqual(await snapshot(root), {});
  });

  it("gives a new file the requested mode", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(sandbox, { path: "secret.txt", content: text("s"), mode: 0o600 });
    assert.equal((await stat(path.join(root, "secret.txt"))).mode & 0o777, 0o600);
  });

  it("writes through a symlink inside the roots, which stays a link", async () => {
    const { root, sandbox } = await writeFixture();
    await mkdir(path.join(root, "real"));
    await fsWriteFile(path.join(root, "real/target.txt"), "old");
    await symlink("real/target.txt", path.join(root, "link.txt"));
    const result = await writeFile(sandbox, { path: "link.txt", content: text("through the link") });
    assert.equal(result.created, false);
    assert.equal(await readFile(path.join(root, "real/target.txt"), "utf8"), "through the link");
    assert.ok((await lstat(path.join(root, "link.txt"))).isSymbolicLink());
    assert.equal(await readlink(path.join(root, "link.txt")), "real/target.txt");
  });

  it("refuses traversal by .., by absolute path and by a symlink leading out, creating nothing", async () => {
    const { root, sandbox } = await writeFixture();
    const outside = await writeFixture();
    await symlink(outside.root, path.join(root, "escape"));
    const before = { inside: await snapshot(root), outside: await snapshot(outside.root) };
    for (const p of ["../escape.txt", path.join(outside.root, "abs.txt"), "escape/via-link.txt"]) {
      await assert.rejects(writeFile(sandbox, { path: p, content: text("evil") }), (err: unknown) => {
        assert.ok(isToolhostError(err, "PATH_TRAVERSAL"));
        assert.ok(err.message.includes("traversal") && err.message.includes(p), err.message);
        return true;
      });
    }
    assert.deepEqual({ inside: await snapshot(root), outside: await snapshot(outside.root) }, before);
  });

  it("refuses an empty path and a directory", async () => {
    const { root, sandbox } = await writeFixture();
    await mkdir(path.join(root, "mydir"));
    await assert.rejects(
      writeFile(sandbox, { path: "", content: text("x") }),
      (err: unknown) => isToolhostError(err, "EMPTY_PATH") && /must not be empty/.test(err.message),
    );
    await assert.rejects(writeFile(sandbox, { path: "mydir", content: text("x") }), (err: unknown) => {
      assert.ok(isToolhostError(err, "NOT_A_REGULAR_FILE"));
      assert.equal(err.message, "Cannot write 'mydir': it is a directory, not a regular file; choose a file path.");
      return true;
    });
    assert.deepEqual(await snapshot(root), { mydir: `dir ${(0o777 & ~process.umask()).toString(8)}` });
  });

  for (const [what, options] of [
    ["a read-only root", { readOnly: true }],
    ["a read-only server", { serverReadOnly: true }],
  ] as const) {
    it(`is refused with READ_ONLY on ${what}, changing nothing`, async () => {
      const { root, sandbox } = await writeFixture(options);
      await fsWriteFile(path.join(root, "keep.txt"), "keep");
      const before = await snapshot(root);
      for (const p of ["keep.txt", "new.txt"]) {
        await assert.rejects(writeFile(sandbox, { path: p, content: text("x") }), (err: unknown) => {
          assert.ok(isToolhostError(err, "READ_ONLY"));
          assert.match(err.message, /read-only/);
          return true;
        });
      }
      assert.deepEqual(await snapshot(root), before);
    });
  }
});
