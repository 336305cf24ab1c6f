import assert from "node:assert/strict";
import type { Stats } from "node:fs";
import { chmod, chown, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError, ToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { atomicWrite } from "../../src/files/write/atomic-write.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { scratchDir } from "./write-fixtures.js";

async function tempDir(): Promise<string> {
  return scratchDir("atomic-");
}

async function tempFilesIn(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter(isTempFileName);
}

function injected(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`injected ${code}`), { code });
}

/** Each step of the write, and an AtomicFsOps whose that step fails with EIO. */
const failingSteps: { step: string; ops: AtomicFsOps }[] = [
  { step: "open", ops: { ...nodeFsOps, openExclusive: async () => Promise.reject(injected("EIO")) } },
  { step: "write", ops: { ...nodeFsOps, write: async () => Promise.reject(injected("EIO")) } },
  { step: "fsync", ops: { ...nodeFsOps, fsync: async () => Promise.reject(injected("EIO")) } },
  { step: "chmod", ops: { ...nodeFsOps, chmod: async () => Promise.reject(injected("EIO")) } },
  {
    step: "close",
    ops: {
      ...nodeFsOps,
      close: async (h) => {
        await h.close();
        throw injected("EIO");
      },
    },
  },
  { step: "rename", ops: { ...nodeFsOps, rename: async () => Promise.reject(injected("EIO")) } },
];

describe("atomicWrite fault injection", () => {
  for (const { step, ops } of failingSteps) {
    it(`a failing ${step} leaves an existing target as it was and no temporary file`, async () => {
      const dir = await tempDir();
      const target = path.join(dir, "notes.txt");
      await writeFile(target, "old content");
      await chmod(target, 0o640);
      await assert.rejects(
        atomicWrite(target, Buffer.from("new content"), { displayPath: "notes.txt", fsOps: ops }),
        (err: unknown) => {
          assert.ok(isToolhostError(err, "IO_ERROR"));
          assert.match(err.message, /Cannot write 'notes\.txt': the filesystem failed \(EIO\)/);
          assert.doesNotMatch(err.message, new RegExp(dir));
          return true;
        },
      );
      assert.equal(await readFile(target, "utf8"), "old content");
      assert.equal((await stat(target)).mode & 0o777, 0o640);
      assert.deepEqual(await tempFilesIn(dir), []);
    });

    it(`a failing ${step} creates nothing when the target did not exist`, async () => {
      const dir = await tempDir();
      await assert.rejects(
        atomicWrite(path.join(dir, "new.txt"), Buffer.from("x"), { displayPath: "new.txt", fsOps: ops }),
        ToolhostError,
      );
      assert.deepEqual(await readdir(dir), []);
    });
  }

  it("a slow fsync that fails while a guard checks the target: the fsync's error, the target as it was, and the guard ran", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "notes.txt");
    await writeFile(target, "old content");
    let guarded = 0;
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      fsync: async () => {
        await new Promise((r) => setTimeout(r, 30));
        throw injected("EIO");
      },
    };
    await assert.rejects(
      atomicWrite(target, Buffer.from("new content"), {
        displayPath: "notes.txt",
        fsOps: ops,
        beforeCommit: async () => {
          guarded++;
        },
      }),
      (err: unknown) => isToolhostError(err, "IO_ERROR") && /EIO/.test(err.message),
    );
    assert.equal(guarded, 1, "the guard ran while the fsync was in flight");
    assert.equal(await readFile(target, "utf8"), "old content");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("a failing directory fsync after the rename reports the error and leaves the new content, no temporary file", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "notes.txt");
    await writeFile(target, "old content");
    let syncs = 0;
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      fsyncDir: async () => {
        syncs++;
        throw injected("EIO");
      },
    };
    await assert.rejects(
      atomicWrite(target, Buffer.from("new content"), { displayPath: "notes.txt", fsOps: ops }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "IO_ERROR"));
        assert.match(err.message, /'notes\.txt' now holds the new content, but syncing its directory failed \(EIO\)/);
        assert.equal(err.metadata["committed"], "true");
        return true;
      },
    );
    assert.equal(syncs, 1, "an fsync error is final, never retried");
    assert.equal(await readFile(target, "utf8"), "new content");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("a full disk during write is NO_SPACE and changes nothing", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "big.bin");
    await writeFile(target, "old");
    const ops: AtomicFsOps = { ...nodeFsOps, write: async () => Promise.reject(injected("ENOSPC")) };
    await assert.rejects(
      atomicWrite(target, Buffer.from("new"), { displayPath: "big.bin", fsOps: ops }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "NO_SPACE"));
        assert.match(err.message, /Cannot write 'big\.bin': the filesystem is full or over quota/);
        return true;
      },
    );
    assert.equal(await readFile(target, "utf8"), "old");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("a temporary file that cannot be removed is named in the error", async () => {
    const dir = await tempDir();
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      rename: async () => Promise.reject(injected("EIO")),
      unlink: async () => Promise.reject(injected("EBUSY")),
    };
    await assert.rejects(
      atomicWrite(path.join(dir, "a.txt"), Buffer.from("x"), { displayPath: "a.txt", fsOps: ops }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "IO_ERROR"));
        assert.match(
          err.message,
          /The temporary file '\.toolhost-tmp-[0-9a-f]{12}-[0-9]+-[0-9a-f]{32}' could not be removed; the next server start removes it\./,
        );
        return true;
      },
    );
  });
});

describe("atomicWrite", () => {
  it("loops on short writes until every byte is written", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "short.txt");
    let calls = 0;
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      write: (h, b, off, len, pos) => {
        calls++;
        return nodeFsOps.write(h, b, off, Math.min(len, 3), pos);
      },
    };
    const content = Buffer.from("0123456789abcdefghij");
    const result = await atomicWrite(target, content, { displayPath: "short.txt", fsOps: ops });
    assert.equal(await readFile(target, "utf8"), "0123456789abcdefghij");
    assert.equal(calls, 7);
    assert.deepEqual(
      { size: result.size, sha256: result.sha256, created: result.created },
      { size: 20, sha256: sha256Hex(content), created: true },
    );
  });

  it("fails instead of spinning when write(2) writes nothing", async () => {
    const dir = await tempDir();
    const ops: AtomicFsOps = { ...nodeFsOps, write: async () => 0 };
    await assert.rejects(
      atomicWrite(path.join(dir, "a.txt"), Buffer.from("x"), { displayPath: "a.txt", fsOps: ops }),
      (err: unknown) => isToolhostError(err, "IO_ERROR"),
    );
    assert.deepEqual(await readdir(dir), []);
  });

  it("gives a new file 0644 under the umask, or the requested mode", async () => {
    const dir = await tempDir();
    await atomicWrite(path.join(dir, "default.txt"), Buffer.from("x"), { displayPath: "default.txt" });
    await atomicWrite(path.join(dir, "private.txt"), Buffer.from("x"), { displayPath: "private.txt", mode: 0o600 });
    assert.equal((await stat(path.join(dir, "default.txt"))).mode & 0o777, 0o644 & ~process.umask());
    assert.equal((await stat(path.join(dir, "private.txt"))).mode & 0o777, 0o600);
  });

  it("keeps an overwritten file's mode and owner, ignoring the new-file mode", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "run.sh");
    await writeFile(target, "echo old");
    await chmod(target, 0o751);
    const result = await atomicWrite(target, Buffer.from("echo new"), { displayPath: "run.sh", mode: 0o600 });
    const after = await stat(target);
    assert.equal(after.mode & 0o7777, 0o751);
    assert.equal(result.created, false);
    assert.equal(result.previous?.size, 8);
  });

  it("drops set-uid and set-gid from an overwritten file but keeps its other bits and owner", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "suid");
    await writeFile(target, "#!/bin/sh\necho old\n");
    await chown(target, 1234, 1234);
    await chmod(target, 0o6755);
    const sticky = path.join(dir, "sticky");
    await writeFile(sticky, "old");
    await chmod(sticky, 0o1640);
    await atomicWrite(target, Buffer.from("#!/bin/sh\nid -u\n"), { displayPath: "suid" });
    await atomicWrite(sticky, Buffer.from("new"), { displayPath: "sticky" });
    const after = await stat(target);
    assert.equal(after.mode & 0o7777, 0o755);
    assert.deepEqual([after.uid, after.gid], [1234, 1234]);
    assert.equal((await stat(sticky)).mode & 0o7777, 0o1640);
  });

  it("tolerates a refused chown (EPERM) but not another chown failure", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "owned.txt");
    await writeFile(target, "old");
    // Pretend the file belongs to someone else, so the write tries to give it back.
    const foreign = async (file: string): Promise<Stats | undefined> => {
      const real = await nodeFsOps.statTarget(file);
      return (
        real &&
        Object.assign(Object.create(Object.getPrototypeOf(real) as object) as Stats, real, { uid: real.uid + 1 })
      );
    };
    const eperm: AtomicFsOps = {
      ...nodeFsOps,
      statTarget: foreign,
      chown: async () => Promise.reject(injected("EPERM")),
    };
    await atomicWrite(target, Buffer.from("new"), { displayPath: "owned.txt", fsOps: eperm });
    assert.equal(await readFile(target, "utf8"), "new");
    const eio: AtomicFsOps = { ...eperm, chown: async () => Promise.reject(injected("EIO")) };
    await assert.rejects(
      atomicWrite(target, Buffer.from("newer"), { displayPath: "owned.txt", fsOps: eio }),
      (err: unknown) => isToolhostError(err, "IO_ERROR"),
    );
    assert.equal(await readFile(target, "utf8"), "new");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("streams an async iterable and reports its size and hash", async () => {
    const dir = await tempDir();
    async function* chunks() {
      yield Buffer.from("hello ");
      yield Buffer.from("world");
    }
    const result = await atomicWrite(path.join(dir, "s.txt"), chunks(), { displayPath: "s.txt" });
    assert.equal(await readFile(path.join(dir, "s.txt"), "utf8"), "hello world");
    assert.equal(result.sha256, sha256Hex("hello world"));
    assert.equal(result.size, 11);
  });

  it("a source that breaks mid-stream leaves the target and no temporary file", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "s.txt");
    await writeFile(target, "old");
    async function* broken() {
      yield Buffer.from("partial");
      throw new Error("stream reset");
    }
    await assert.rejects(atomicWrite(target, broken(), { displayPath: "s.txt" }), /stream reset/);
    assert.equal(await readFile(target, "utf8"), "old");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("an abort mid-stream leaves the target and no temporary file", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "s.txt");
    await writeFile(target, "old");
    const controller = new AbortController();
    async function* chunks() {
      yield Buffer.from("first");
      controller.abort();
      yield Buffer.from("second");
    }
    await assert.rejects(atomicWrite(target, chunks(), { displayPath: "s.txt", signal: controller.signal }), {
      name: "AbortError",
    });
    assert.equal(await readFile(target, "utf8"), "old");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("a failing beforeCommit check changes nothing", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "c.txt");
    await writeFile(target, "old");
    const refusal = new ToolhostError("PRECONDITION_FAILED", "no");
    await assert.rejects(
      atomicWrite(target, Buffer.from("new"), {
        displayPath: "c.txt",
        beforeCommit: () => {
          throw refusal;
        },
      }),
      (err) => err === refusal,
    );
    assert.equal(await readFile(target, "utf8"), "old");
    assert.deepEqual(await tempFilesIn(dir), []);
  });

  it("refuses to replace a directory", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "sub"));
    await assert.rejects(
      atomicWrite(path.join(dir, "sub"), Buffer.from("x"), { displayPath: "sub" }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "NOT_A_REGULAR_FILE"));
        assert.equal(err.message, "Cannot write 'sub': it is a directory, not a regular file; choose a file path.");
        return true;
      },
    );
    assert.deepEqual(await readdir(dir), ["sub"]);
  });

  it("leaves exactly one writer's whole content when 32 write one path at once", async () => {
    const dir = await tempDir();
    const target = path.join(dir, "race.txt");
    const contents = Array.from({ length: 32 }, (_, i) =>
      Buffer.alloc(64 * 1024, String.fromCharCode(65 + (i % 26)) + String(i)),
    );
    await Promise.all(contents.map((c) => atomicWrite(target, c, { displayPath: "race.txt" })));
    const final = await readFile(target);
    assert.ok(contents.some((c) => c.equals(final)));
    assert.deepEqual(await tempFilesIn(dir), []);
  });
});
