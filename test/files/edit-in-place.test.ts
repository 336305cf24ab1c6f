import assert from "node:assert/strict";
import { AsyncResource, createHook, executionAsyncId } from "node:async_hooks";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { editFile } from "../../src/files/edit/edit-file.js";
import { ChangeRecording } from "../../src/files/history/change-recording.js";
import { FileHistory } from "../../src/files/history/file-history.js";
import { repliesLeft } from "../../src/files/write/after-reply.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { StagedDescriptor } from "../../src/files/write/staged-descriptor.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { waitFor } from "../support/wait-for.js";
import { scratchDir, snapshot, writeFixture } from "./write-fixtures.js";

const limit = 1 << 20;
const fourKb = `${"x".repeat(2000)}\nalpha-marker\n${"y".repeat(2000)}\n`;

function history(dir: string): FileHistory {
  return new FileHistory({
    dir,
    maxBytes: 1 << 30,
    maxAgeMs: 3_600_000,
    maxFileBytes: 1 << 20,
    maxEntriesPerFile: 1000,
  });
}

/** editRecorded is the service's EditFile in files/ terms: an edit recorded in `store`'s history. */
async function editRecorded(
  store: FileHistory,
  sandbox: Parameters<typeof editFile>[0],
  clientPath: string,
  from: string,
  to: string,
  fsOps?: AtomicFsOps,
) {
  const recording = new ChangeRecording(store);
  try {
    return await editFile(sandbox, {
      path: clientPath,
      edits: [{ kind: "replace", oldText: from, newText: to }],
      maxEditBytes: limit,
      fsOps,
      beforeChange: recording.capture,
      afterChange: (change) =>
        recording.record({ operation: "edit", caller: "test", before: change.previousSha256, after: change.sha256 }),
    });
  } finally {
    await recording.end();
  }
}

/** The thread-pool request kinds pooledRequests counts. */
const pooledKinds = new Set(["FSREQCALLBACK", "FSREQPROMISE", "FILEHANDLE", "FILEHANDLECLOSEREQ"]);

/** The resources pooledRequests waits for: each is destroyed when it has run (others only when collected). */
const awaitedKinds = new Set(["Timeout", "Immediate", "FSREQCALLBACK", "FSREQPROMISE", "FILEHANDLECLOSEREQ"]);

/**
 * pooledRequests runs `fn` and counts the filesystem requests it sent to libuv's thread pool, by
 * kind, including what it leaves running after it resolves (the history line's fsync, the
 * replaced file's release). Only requests descending from `fn`'s own async scope count, so
 * another call's late work cannot fall into the window; it returns once every timer, immediate
 * and request of that scope has finished, not after a fixed wait.
 */
async function pooledRequests(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  // Work an earlier edit left for after its reply runs now, off the shared fallback timer: were
  // that timer still due, this edit's own deferred close would run from it, outside the scope.
  repliesLeft();
  await new Promise((resolve) => setImmediate(resolve));
  const counts: Record<string, number> = {};
  const scope = new Set<number>();
  const running = new Map<number, string>(); // The scope's awaited resources not yet destroyed.
  const hook = createHook({
    init(id, type, trigger) {
      if (!scope.has(trigger) && !scope.has(executionAsyncId())) return;
      scope.add(id);
      if (awaitedKinds.has(type)) running.set(id, type);
      if (pooledKinds.has(type)) counts[type] = (counts[type] ?? 0) + 1;
    },
    destroy(id) {
      running.delete(id);
    },
  });
  const root = new AsyncResource("EDIT_UNDER_TEST");
  const waiter = new AsyncResource("EDIT_WAITER"); // Outside the scope: its polling is not counted.
  scope.add(root.asyncId());
  hook.enable();
  try {
    await root.runInAsyncScope(fn);
    await waiter.runInAsyncScope(() =>
      waitFor("the edit's own work after its answer to finish", () => running.size === 0, { timeoutMs: 30_000 }).catch(
        (error: Error) => {
          throw new Error(`${error.message}: still running ${[...running.values()].join(", ")}`);
        },
      ),
    );
  } finally {
    hook.disable();
    root.emitDestroy();
    waiter.emitDestroy();
  }
  return counts;
}

/** heldDeleted lists this process's descriptors that hold a file under `dir` whose last name is gone. */
function heldDeleted(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // Closed meanwhile (readdir's own descriptor).
    }
    if (target.startsWith(dir) && target.endsWith(" (deleted)")) held.push(target);
  }
  return held;
}

describe("an edit of a small file in a local folder", () => {
  it("sends only its fsyncs and the replaced file's release to the thread pool, history included", async () => {
    const { root, sandbox } = await writeFixture();
    const store = history(await scratchDir("history-"));
    await writeFile(path.join(root, "e.txt"), fourKb);
    // Twice first: the history's folders are made and the content before is stored once.
    await editRecorded(store, sandbox, "e.txt", "alpha-marker", "omega-marker");
    await editRecorded(store, sandbox, "e.txt", "omega-marker", "alpha-marker");
    const counts = await pooledRequests(() => editRecorded(store, sandbox, "e.txt", "alpha-marker", "omega-marker"));
    // The new content's fsync, the folder's fsync, the history line's fsync, the close of the
    // replaced file (held open across the rename); nothing opened as a FileHandle. It was 17.
    // The close runs from afterReply's timer, shared by every change: on a loaded machine one set
    // before this scope may still be due and run it, uncounted, so 3 is as right as 4.
    assert.deepEqual(Object.keys(counts), ["FSREQCALLBACK"]);
    assert.ok(counts["FSREQCALLBACK"]! >= 3 && counts["FSREQCALLBACK"]! <= 4, JSON.stringify(counts));
    assert.equal(await readFile(path.join(root, "e.txt"), "utf8"), fourKb.replace("alpha-marker", "omega-marker"));
    const changes = await store.list(
      await store.keyFor({ root: { path: root }, realPath: path.join(root, "e.txt") }),
      10,
    );
    assert.equal(changes.length, 3, "every edit has its history line");
    assert.ok(changes.every((c) => c.beforeAvailable));
  });

  it("leaves no descriptor holding the file it replaced once it has answered", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "p.txt"), fourKb);
    for (let i = 0; i < 20; i++) {
      const [from, to] = i % 2 === 0 ? ["alpha-marker", "omega-marker"] : ["omega-marker", "alpha-marker"];
      await editFile(sandbox, {
        path: "p.txt",
        edits: [{ kind: "replace", oldText: from, newText: to }],
        maxEditBytes: limit,
      });
    }
    // Released through the thread pool right after the answer: wait for it, a bounded time.
    await waitFor("the replaced files' release", () => heldDeleted(root).length === 0, { timeoutMs: 30_000 }).catch(
      () => undefined,
    );
    assert.deepEqual(heldDeleted(root), []);
  });

  it("passes the rename through the fault-injection seam, allowed in place, and a failing one changes nothing", async () => {
    const { root, sandbox } = await writeFixture();
    await writeFile(path.join(root, "r.txt"), fourKb);
    const renames: (boolean | undefined)[] = [];
    const recording: AtomicFsOps = {
      ...nodeFsOps,
      rename: (from, to, inPlace) => (renames.push(inPlace), nodeFsOps.rename(from, to, inPlace)),
    };
    await editFile(sandbox, {
      path: "r.txt",
      edits: [{ kind: "replace", oldText: "alpha", newText: "omega" }],
      maxEditBytes: limit,
      fsOps: recording,
    });
    assert.deepEqual(renames, [true]);
    const before = await snapshot(root);
    const failing: AtomicFsOps = {
      ...nodeFsOps,
      rename: async () => Promise.reject(Object.assign(new Error("injected EIO"), { code: "EIO" })),
    };
    await assert.rejects(
      editFile(sandbox, {
        path: "r.txt",
        edits: [{ kind: "replace", oldText: "omega", newText: "alpha" }],
        maxEditBytes: limit,
        fsOps: failing,
      }),
      {
        reason: "IO_ERROR",
      },
    );
    assert.deepEqual(await snapshot(root), before, "the file as it was, no temporary or lock file left");
    await waitFor("the replaced files' release", () => heldDeleted(root).length === 0, { timeoutMs: 30_000 }).catch(
      () => undefined,
    );
    assert.deepEqual(heldDeleted(root), []);
  });

  it("never changes a file outside the root while the edited file is exchanged with a link to it", async () => {
    const { root, sandbox } = await writeFixture();
    const outside = await scratchDir("outside-");
    await writeFile(path.join(outside, "secret.txt"), fourKb);
    await writeFile(path.join(root, "f.txt"), fourKb);
    await symlink(path.join(outside, "secret.txt"), path.join(root, "l"));
    const store = history(await scratchDir("history-"));
    const before = await snapshot(outside);
    const loop = await startExchangeLoop(path.join(root, "f.txt"), path.join(root, "l"), 20);
    const outcomes: Record<string, number> = {};
    try {
      // Bounded by work: 150 edits race the exchange loop however slow the machine is.
      for (let i = 0; i < 150; i++) {
        const [from, to] = i % 2 === 0 ? ["alpha-marker", "omega-marker"] : ["omega-marker", "alpha-marker"];
        const outcome = await editRecorded(store, sandbox, "f.txt", from, to).then(
          () => "applied",
          (err: { reason?: string }) => err.reason ?? String(err),
        );
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    } finally {
      await loop.stop();
    }
    assert.deepEqual(
      await snapshot(outside),
      before,
      `nothing outside the root changed (outcomes: ${JSON.stringify(outcomes)})`,
    );
    const left = (await readdir(root)).filter((name) => name.startsWith(tempFilePrefix));
    assert.deepEqual(left, [], "no temporary or lock file left in the root");
    await waitFor("the replaced files' release", () => heldDeleted(root).length === 0, { timeoutMs: 30_000 }).catch(
      () => undefined,
    );
    assert.deepEqual(heldDeleted(root), []);
  });
});

describe("StagedDescriptor", () => {
  it("waits for an fsync in flight before it closes, and refuses use after close with EBADF", async () => {
    const dir = await scratchDir("staged-");
    const staged = await nodeFsOps.openExclusive(path.join(dir, "t"), 0o600, true);
    assert.ok(staged instanceof StagedDescriptor);
    assert.equal((await staged.write(Buffer.from("abc"), 0, 3, 0)).bytesWritten, 3);
    const synced = staged.sync();
    const closed = staged.close();
    assert.equal(staged.fd, -1, "no new use once closing");
    await Promise.all([synced, closed]);
    await assert.rejects(staged.sync(), { code: "EBADF" });
    await assert.rejects(staged.chown(0, 0), { code: "EBADF" });
    assert.equal(await readFile(path.join(dir, "t"), "utf8"), "abc");
  });

  it("refuses to create over an existing name or through a link, as the thread-pool create does", async () => {
    const dir = await scratchDir("staged-");
    await writeFile(path.join(dir, "taken"), "x");
    await symlink(path.join(dir, "nowhere"), path.join(dir, "link"));
    await assert.rejects(nodeFsOps.openExclusive(path.join(dir, "taken"), 0o600, true), { code: "EEXIST" });
    await assert.rejects(nodeFsOps.openExclusive(path.join(dir, "link"), 0o600, true), { code: "EEXIST" });
    assert.equal(existsSync(path.join(dir, "nowhere")), false);
  });
});

/** logLocks lists the lock files in a history's log folder. */
async function logLocks(dir: string): Promise<string[]> {
  return existsSync(path.join(dir, "log"))
    ? (await readdir(path.join(dir, "log"))).filter((n) => n.startsWith(tempFilePrefix))
    : [];
}

describe("ChangeRecording", () => {
  it("syncs a line and releases the log's lock even when its change never says it answered, and a next change records meanwhile", async () => {
    const { root } = await writeFixture();
    const dir = await scratchDir("history-");
    const store = history(dir);
    const resolved = { root: { path: root }, realPath: path.join(root, "n.txt") };
    const first = new ChangeRecording(store);
    await first.capture(Buffer.from("one"), resolved);
    await first.record({ operation: "edit", caller: "test", before: "a", after: "b" }); // end() never called
    const second = new ChangeRecording(store);
    await second.capture(Buffer.from("two"), resolved);
    await second.record({ operation: "edit", caller: "test", before: "b", after: "c" });
    await second.end();
    await waitFor("the history locks' release", async () => (await logLocks(dir)).length === 0, {
      timeoutMs: 30_000,
    }).catch(() => undefined);
    assert.deepEqual(await logLocks(dir), [], "the log's lock is released");
    assert.deepEqual(
      (await store.list(await store.keyFor(resolved), 10)).map((c) => c.after),
      ["c", "b"],
    );
  });

  it("takes no log lock when its change ends before the capture begins, and the next change records", async () => {
    const { root } = await writeFixture();
    const dir = await scratchDir("history-");
    const store = history(dir);
    const resolved = { root: { path: root }, realPath: path.join(root, "c.txt") };
    const first = new ChangeRecording(store);
    const captured = first.capture(Buffer.from("before"), resolved);
    await first.end(); // The change failed before its capture's turn came.
    await captured;
    assert.deepEqual(await logLocks(dir), []);
    const second = new ChangeRecording(store);
    await second.capture(Buffer.from("before"), resolved);
    await second.record({ operation: "edit", caller: "test", before: "b", after: "a" });
    await second.end();
    const changes = await store.list(await store.keyFor(resolved), 10);
    assert.equal(changes.length, 1);
  });
});
