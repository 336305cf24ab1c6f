import assert from "node:assert/strict";
import { readdir, readFile, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, beforeEach, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { atomicWrite } from "../../src/files/write/atomic-write.js";
import { acquireFileLock, isLockFileName, lockFileName } from "../../src/files/write/file-lock.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { removeStaleTempFiles } from "../../src/files/write/sweep-temp-files.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { writerIdentity } from "../../src/files/write/writer-identity.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { failureOf, scratchDir } from "./write-fixtures.js";

/**
 * plainDir names entries of `dir` by path, standing in for a verified directory handle; its
 * lock file is made on the calling thread or through the thread pool, as `lockLocal` (the
 * describe block below runs once with each) says.
 */
let lockLocal = false;
function plainDir(dir: string) {
  return { entry: (name: string) => path.join(dir, name), local: lockLocal };
}

/** plantLock leaves a lock file on `name` in `dir` as a holder `owner` would, `ageMs` old. */
async function plantLock(
  dir: string,
  name: string,
  owner: { identity: string; pid: number },
  ageMs: number,
): Promise<string> {
  const file = path.join(dir, lockFileName(name));
  await writeFile(file, JSON.stringify(owner));
  const then = new Date(Date.now() - ageMs);
  await utimes(file, then, then);
  return file;
}

const otherHost = { identity: "0123456789ab", pid: 1 };
const crashedHere = () => ({ identity: writerIdentity(), pid: 2 ** 30 });

for (const local of [true, false])
  describe(`the cross-process file lock (lock file made ${local ? "on the event loop" : "through the thread pool"})`, () => {
    beforeEach(() => {
      lockLocal = local;
    });

    it("a waiter gives up after the wait bound with FILE_LOCKED saying to retry", async () => {
      const dir = await scratchDir("lock-");
      await plantLock(dir, "a.txt", otherHost, 0);
      const started = Date.now();
      await assert.rejects(
        acquireFileLock(plainDir(dir), "a.txt", { displayPath: "a.txt", waitMs: 300 }),
        (err: unknown) => {
          assert.ok(isToolhostError(err, "FILE_LOCKED"));
          assert.match(
            err.message,
            /^Cannot change 'a\.txt': another writer \(possibly another replica\) held its lock for over 300 ms; nothing was changed\. Retry the call\.$/,
          );
          return true;
        },
      );
      assert.ok(Date.now() - started < 2_000);
    });

    it("takes over a lock untouched past the staleness time, and at once one whose holder here has exited", async () => {
      const dir = await scratchDir("lock-");
      for (const [owner, age] of [
        [otherHost, 3_600_000],
        [crashedHere(), 0],
      ] as const) {
        await plantLock(dir, "a.txt", owner, age);
        const lock = await acquireFileLock(plainDir(dir), "a.txt", { displayPath: "a.txt", waitMs: 300 });
        await lock.assertHeld();
        await lock.release();
        assert.deepEqual(await readdir(dir), [], "released: nothing left behind");
      }
    });

    it("20 waiters racing to take over one stale lock hold it one at a time", async () => {
      const dir = await scratchDir("lock-");
      await plantLock(dir, "a.txt", otherHost, 3_600_000);
      let inside = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const lock = await acquireFileLock(plainDir(dir), "a.txt", { displayPath: "a.txt", waitMs: 20_000 });
          inside++;
          most = Math.max(most, inside);
          await lock.assertHeld();
          await sleep(5);
          inside--;
          await lock.release();
        }),
      );
      assert.equal(most, 1);
      assert.deepEqual(await readdir(dir), []);
    });

    it("a holder whose lock was taken over fails its commit instead of racing", async () => {
      const dir = await scratchDir("lock-");
      const lock = await acquireFileLock(plainDir(dir), "a.txt", { displayPath: "a.txt" });
      const then = new Date(Date.now() - 3_600_000);
      await utimes(path.join(dir, lockFileName("a.txt")), then, then); // As if it had stalled for an hour.
      const thief = await acquireFileLock(plainDir(dir), "a.txt", { displayPath: "a.txt", waitMs: 300 });
      await assert.rejects(
        lock.assertHeld(),
        (err: unknown) => isToolhostError(err, "FILE_LOCKED") && /Retry the call/.test(err.message),
      );
      await lock.release();
      await thief.assertHeld(); // The first holder's release did not remove the thief's lock.
      await thief.release();
      assert.deepEqual(await readdir(dir), []);
    });

    it("the start-up sweep removes a crashed holder's lock file, not a live one's", async () => {
      const dir = await scratchDir("lock-");
      const crashed = await plantLock(dir, "a.txt", crashedHere(), 0);
      const live = await plantLock(dir, "b.txt", otherHost, 0);
      const report = await removeStaleTempFiles([{ path: dir }]);
      assert.deepEqual(report.removed, [crashed]);
      assert.deepEqual(await readdir(dir), [path.basename(live)]);
    });

    it("lock names are reserved, fixed-length names", () => {
      const name = lockFileName("x".repeat(255));
      assert.ok(name.startsWith(tempFilePrefix) && isLockFileName(name) && name.length < 60);
    });
  });

describe("a write whose temporary file vanishes", () => {
  it("fails with WRITE_INTERRUPTED saying what happened, and leaves the target as it was", async () => {
    const dir = await scratchDir("vanish-");
    await writeFile(path.join(dir, "a.txt"), "old");
    const ops: AtomicFsOps = {
      ...nodeFsOps,
      rename: async (from, to) => {
        await nodeFsOps.unlink(from);
        return nodeFsOps.rename(from, to);
      },
    };
    await assert.rejects(
      atomicWrite(path.join(dir, "a.txt"), Buffer.from("new"), { displayPath: "a.txt", fsOps: ops }),
      (err: unknown) => {
        assert.ok(isToolhostError(err, "WRITE_INTERRUPTED"));
        assert.match(
          err.message,
          /^Cannot write 'a\.txt': its temporary file was removed by another process .*nothing was changed\. Retry the call\.$/,
        );
        return true;
      },
    );
    assert.equal(await readFile(path.join(dir, "a.txt"), "utf8"), "old");
    assert.deepEqual(await readdir(dir), ["a.txt"]);
  });
});

describe("guarded writes and the lock file, over gRPC", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it("a client can neither write nor delete a lock file's name", async () => {
    const name = lockFileName("a.txt");
    for (const call of [
      server.fileTools.writeFile({ path: name, content: { case: "text", value: "x" } }),
      server.fileTools.deleteFile({ path: name }),
    ]) {
      const failure = await failureOf(call);
      assert.equal(failure.code, Code.InvalidArgument, failure.message);
      assert.match(failure.message, /reserved for toolhost's temporary files/);
    }
  });

  it("ListDirectory never shows temporary or lock files, even with include_hidden", async () => {
    await plantLock(server.root, "shown.txt", otherHost, 0);
    await writeFile(path.join(server.root, "shown.txt"), "x");
    const page = await server.fileTools.listDirectory({ path: ".", includeHidden: true });
    assert.ok(page.entries.some((e) => e.path === "shown.txt"));
    assert.deepEqual(
      page.entries.filter((e) => e.path.includes(tempFilePrefix)),
      [],
    );
    await unlink(path.join(server.root, lockFileName("shown.txt")));
  });

  it("a guarded write, edit and delete wait for a live lock and leave no lock file, won or lost", async () => {
    const file = path.join(server.root, "g.txt");
    await writeFile(file, "one\n");
    const sha = sha256Hex(Buffer.from("one\n"));
    const planted = await plantLock(server.root, "g.txt", otherHost, 0);
    const write = server.fileTools.writeFile({
      path: "g.txt",
      content: { case: "text", value: "two\n" },
      ifSha256: sha,
    });
    await sleep(300);
    assert.equal(await readFile(file, "utf8"), "one\n", "the write waits while another holds the lock");
    await unlink(planted);
    assert.equal((await write).previousSha256, sha);
    const lost = await failureOf(
      server.fileTools.writeFile({ path: "g.txt", content: { case: "text", value: "three\n" }, ifSha256: sha }),
    );
    assert.equal(lost.reason, "PRECONDITION_FAILED");
    await server.fileTools.editFile({
      path: "g.txt",
      edits: [{ kind: { case: "append", value: { text: "more\n" } } }],
    });
    const deleted = await server.fileTools.deleteFile({
      path: "g.txt",
      ifSha256: sha256Hex(Buffer.from("two\nmore\n")),
    });
    assert.equal(deleted.existed, true);
    assert.deepEqual(
      (await readdir(server.root)).filter((n) => n.startsWith(tempFilePrefix)),
      [],
    );
  });
});
