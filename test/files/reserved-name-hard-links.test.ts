import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { link, mkdir, mkdtemp, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { lockFileName } from "../../src/files/write/file-lock.js";
import { tempFileName, tempFilePrefix } from "../../src/files/write/temp-files.js";
import { writerIdentity } from "../../src/files/write/writer-identity.js";
import { startTestServer } from "../support/test-server.js";

// Someone who can create entries in a root puts hard links to outside files (and FIFOs) where the
// write side keeps its own files: at the lock file name of a file clients edit, and at crashed-
// writer temporary file names the start-up sweep removes. Taking over, sweeping and writing may
// only ever remove those names; the outside files keep their content and their other link.
describe("hard links and FIFOs at lock and temporary file names", () => {
  it("are removed as names only: outside files keep content and link, edits go through", async () => {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-reserved-links-"));
    const root = path.join(base, "root");
    const outside = path.join(base, "outside");
    await mkdir(root);
    await mkdir(outside);
    const old = new Date(Date.now() - 3_600_000);
    const secrets = ["lock-secret", "temp-secret", "temp-secret-2"].map((n) => path.join(outside, n));
    for (const s of secrets) {
      await writeFile(s, `{"identity":"${writerIdentity()}","pid":1} ${path.basename(s)}\n`);
      await utimes(s, old, old);
    }
    await writeFile(path.join(root, "f.txt"), "f\n");
    await writeFile(path.join(root, "g.txt"), "g\n");
    await link(secrets[0]!, path.join(root, lockFileName("f.txt")));
    await link(secrets[1]!, path.join(root, tempFileName({ identity: writerIdentity(), pid: 2 ** 22 + 7 })));
    await link(secrets[2]!, path.join(root, tempFileName({ identity: "0123456789ab", pid: 1 })));
    const fifoLock = path.join(root, lockFileName("g.txt"));
    execFileSync("mkfifo", [fifoLock]);
    await utimes(fifoLock, old, old);

    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      await server.fileTools.editFile({
        path: "f.txt",
        edits: [{ kind: { case: "append", value: { text: "more\n" } } }],
      });
      await server.fileTools.editFile({
        path: "g.txt",
        edits: [{ kind: { case: "append", value: { text: "more\n" } } }],
      });
    } finally {
      await server.close();
    }
    assert.equal(await readFile(path.join(root, "f.txt"), "utf8"), "f\nmore\n");
    assert.equal(await readFile(path.join(root, "g.txt"), "utf8"), "g\nmore\n");
    for (const s of secrets) {
      assert.equal(
        await readFile(s, "utf8"),
        `{"identity":"${writerIdentity()}","pid":1} ${path.basename(s)}\n`,
        `${s} kept its content`,
      );
      assert.equal((await stat(s)).nlink, 1, `${s} lost only its link inside the root`);
    }
    assert.deepEqual(
      (await readdir(root)).filter((n) => n.startsWith(tempFilePrefix)),
      [],
      "no reserved name is left",
    );
  });
});
