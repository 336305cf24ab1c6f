import assert from "node:assert/strict";
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { link, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { maxDirtyNames } from "../../../src/files/watch/watched-folder.js";
import { tempFilePrefix } from "../../../src/files/write/temp-files.js";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { changes, startWatching, watchRoot } from "./watch-fixture.js";

describe("watchFiles: batches, folders and files", () => {
  it("turns a burst of 100 writes to one file into one modification carrying the final size", async () => {
    const { root, sandbox } = await watchRoot({ "burst.txt": "" });
    const w = await startWatching(sandbox, {});
    try {
      // Synchronous writes: every one of them is in the kernel's queue before the watch reads any.
      for (let i = 1; i <= 100; i++) writeFileSync(path.join(root, "burst.txt"), "x".repeat(i));
      await w.waitFor((e) => changes(e).length > 0);
      await w.settle();
      assert.deepEqual(
        w.events.filter((e) => "path" in e),
        [{ type: "modified", path: "burst.txt", kind: "file", size: 100, hardLinked: false }],
      );
    } finally {
      await w.stop();
    }
  });

  it("lists a folder whole when more names changed in it than it remembers (maxDirtyNames), with the same events", async () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`old-${i}.txt`, "x"]));
    const { root, sandbox } = await watchRoot({ ...files, "kept.txt": "k" });
    const w = await startWatching(sandbox, {});
    try {
      const n = maxDirtyNames + 44;
      for (let i = 0; i < n; i++) writeFileSync(path.join(root, `new-${i}.txt`), "y".repeat(i % 7));
      for (let i = 0; i < 10; i++) rmSync(path.join(root, `old-${i}.txt`));
      writeFileSync(path.join(root, "kept.txt"), "kk");
      await w.waitFor((e) => changes(e).length >= n + 11);
      await w.settle();
      const seen = changes(w.events);
      assert.equal(seen.length, n + 11, seen.join(", "));
      assert.deepEqual(seen.slice(0, 10).sort(), Array.from({ length: 10 }, (_, i) => `deleted old-${i}.txt`).sort());
      assert.deepEqual(
        new Set(seen.slice(10)),
        new Set(["modified kept.txt", ...Array.from({ length: n }, (_, i) => `created new-${i}.txt`)]),
      );
      assert.deepEqual(
        w.events.find((e) => "path" in e && e.path === "new-13.txt"),
        { type: "created", path: "new-13.txt", kind: "file", size: 6, hardLinked: false },
      );
    } finally {
      await w.stop();
    }
  });

  it("hides 100 atomic saves' temporary files and reports them as one modification", async () => {
    const { root, sandbox } = await watchRoot({ "a.txt": "" });
    const w = await startWatching(sandbox, {});
    try {
      for (let i = 1; i <= 100; i++) {
        const temp = path.join(root, `${tempFilePrefix}bench-${i}`);
        writeFileSync(temp, "y".repeat(i));
        chmodSync(temp, 0o644);
        renameSync(temp, path.join(root, "a.txt"));
      }
      await w.waitFor((e) => changes(e).length > 0);
      await w.settle();
      assert.deepEqual(
        w.events.filter((e) => "path" in e),
        [{ type: "modified", path: "a.txt", kind: "file", size: 100, hardLinked: false }],
      );
    } finally {
      await w.stop();
    }
  });

  it("reports a folder renamed inside the tree as one rename, and later changes in it under its new name", async () => {
    const { root, sandbox } = await watchRoot({ "sub/x.txt": "1", "sub/deep/y.txt": "2" });
    const w = await startWatching(sandbox, { recursive: true });
    try {
      await rename(path.join(root, "sub"), path.join(root, "moved"));
      await w.waitFor((e) => changes(e).includes("renamed sub -> moved"));
      await writeFile(path.join(root, "moved", "deep", "z.txt"), "3");
      await w.waitFor((e) => changes(e).includes("created moved/deep/z.txt"));
      await w.settle();
      assert.deepEqual(
        changes(w.events).filter((c) => !c.startsWith("modified")),
        ["renamed sub -> moved", "created moved/deep/z.txt"],
      );
    } finally {
      await w.stop();
    }
  });

  it("reports a new folder and what was written into it before its watch was placed, folder first", async () => {
    const { root, sandbox } = await watchRoot();
    const w = await startWatching(sandbox, { recursive: true });
    try {
      mkdirSync(path.join(root, "new", "inner"), { recursive: true });
      writeFileSync(path.join(root, "new", "a.txt"), "a");
      writeFileSync(path.join(root, "new", "inner", "b.txt"), "bb");
      await w.waitFor((e) => ["created new/a.txt", "created new/inner/b.txt"].every((c) => changes(e).includes(c)));
      const seen = changes(w.events);
      assert.ok(seen.indexOf("created new") < seen.indexOf("created new/inner"), seen.join(", "));
      assert.ok(seen.indexOf("created new/inner") < seen.indexOf("created new/inner/b.txt"), seen.join(", "));
      assert.deepEqual(
        w.events.find((e) => "path" in e && e.path === "new/inner/b.txt"),
        { type: "created", path: "new/inner/b.txt", kind: "file", size: 2, hardLinked: false },
      );
    } finally {
      await w.stop();
    }
  });

  it("reports a folder removed with its entries, entries first, and carries on", async () => {
    const { root, sandbox } = await watchRoot({ "gone/a.txt": "", "gone/b/c.txt": "" });
    const w = await startWatching(sandbox, { recursive: true });
    try {
      rmSync(path.join(root, "gone"), { recursive: true });
      await w.waitFor((e) => changes(e).includes("deleted gone"));
      const seen = changes(w.events);
      assert.equal(seen.at(-1), "deleted gone");
      assert.deepEqual([...seen].sort(), [
        "deleted gone",
        "deleted gone/a.txt",
        "deleted gone/b",
        "deleted gone/b/c.txt",
      ]);
      assert.ok(seen.indexOf("deleted gone/b/c.txt") < seen.indexOf("deleted gone/b"), seen.join(", "));
      await writeFile(path.join(root, "after.txt"), "");
      await w.waitFor((e) => changes(e).includes("created after.txt"));
      assert.equal(w.ended, undefined);
    } finally {
      await w.stop();
    }
  });

  it("watches one file: an atomic replace is a modification under the path as given; its removal is sent, then the stream ends", async () => {
    const { root, sandbox } = await watchRoot({ "dir/one.txt": "1", "dir/other.txt": "" });
    const w = await startWatching(sandbox, { path: "dir/./one.txt" });
    try {
      writeFileSync(path.join(root, "dir", `${tempFilePrefix}x`), "22");
      renameSync(path.join(root, "dir", `${tempFilePrefix}x`), path.join(root, "dir", "one.txt"));
      await w.waitFor((e) => changes(e).length > 0);
      writeFileSync(path.join(root, "dir", "other.txt"), "not watched");
      rmSync(path.join(root, "dir", "one.txt"));
      await w.waitFor(() => w.ended !== undefined);
      assert.equal(w.ended, "done");
      assert.deepEqual(
        w.events.filter((e) => "path" in e),
        [
          { type: "modified", path: "dir/./one.txt", kind: "file", size: 2, hardLinked: false },
          { type: "deleted", path: "dir/./one.txt", kind: "file", size: 2, hardLinked: false },
        ],
      );
    } finally {
      await w.stop();
    }
  });

  it("reports a hard link to an outside file as hard-linked, its size withheld, and nothing of writes made through the outside name", async () => {
    const outside = await tempDir("outside");
    const secret = path.join(outside, "secret.txt");
    await writeFile(secret, "TOP SECRET\n", { mode: 0o600 });
    const { root, sandbox } = await watchRoot();
    const w = await startWatching(sandbox, {});
    try {
      await link(secret, path.join(root, "innocent.txt"));
      await w.waitFor((e) => changes(e).includes("created innocent.txt"));
      await writeFile(secret, "STILL SECRET, LONGER\n");
      await writeFile(path.join(root, "marker.txt"), "");
      await w.waitFor((e) => changes(e).includes("created marker.txt"));
      await w.settle();
      assert.deepEqual(changes(w.events), ["created innocent.txt", "created marker.txt"]);
      assert.deepEqual(
        w.events.find((e) => "path" in e && e.path === "innocent.txt"),
        { type: "created", path: "innocent.txt", kind: "file", size: 0, hardLinked: true },
      );
      assert.equal(await readFile(secret, "utf8"), "STILL SECRET, LONGER\n");
    } finally {
      await w.stop();
    }
  });
});
