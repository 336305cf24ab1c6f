import assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { atomicWrite } from "../../../src/files/write/atomic-write.js";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { writeTree } from "../search/search-fixture.js";
import { changes, startWatching, watchRoot } from "./watch-fixture.js";

describe("watchFiles: events", () => {
  it("reports created, modified, deleted and renamed with kind and size", async () => {
    const { root, sandbox } = await watchRoot({ "old.txt": "x" });
    const w = await startWatching(sandbox, { recursive: true });
    try {
      // In one go (a write in place whose steps lie further apart than the quiet window may come
      // as CREATED, then MODIFIED with the final size).
      writeFileSync(path.join(root, "a.txt"), "hello");
      await w.waitFor((e) => changes(e).includes("created a.txt"));
      const created = w.events.find((e) => "path" in e && e.path === "a.txt");
      assert.deepEqual(created, { type: "created", path: "a.txt", kind: "file", size: 5, hardLinked: false });
      appendFileSync(path.join(root, "a.txt"), "!!");
      await w.waitFor((e) => changes(e).includes("modified a.txt"));
      assert.deepEqual(
        w.events.find((e) => e.type === "modified"),
        { type: "modified", path: "a.txt", kind: "file", size: 7, hardLinked: false },
      );
      await unlink(path.join(root, "a.txt"));
      await w.waitFor((e) => changes(e).includes("deleted a.txt"));
      await rename(path.join(root, "old.txt"), path.join(root, "new.txt"));
      await w.waitFor((e) => changes(e).includes("renamed old.txt -> new.txt"));
      await mkdir(path.join(root, "dir"));
      await w.waitFor((e) => changes(e).includes("created dir"));
      assert.equal(
        w.events.find((e) => "path" in e && e.path === "dir" && e.type === "created")?.["kind" as never],
        "directory",
      );
      await writeFile(path.join(root, "dir", "inner.txt"), "");
      await w.waitFor((e) => changes(e).includes("created dir/inner.txt"));
    } finally {
      await w.stop();
    }
  });

  it("shows an atomic write (temp file + rename) as one modification, its temp file never", async () => {
    const { root, sandbox } = await watchRoot({ "a.txt": "one" });
    const w = await startWatching(sandbox, {});
    try {
      await atomicWrite(path.join(root, "a.txt"), Buffer.from("two!"), { displayPath: "a.txt" });
      await w.waitFor((e) => changes(e).length > 0);
      await w.settle();
      assert.deepEqual(changes(w.events), ["modified a.txt"]);
    } finally {
      await w.stop();
    }
  });

  it("watches only direct entries unless recursive", async () => {
    const { root, sandbox } = await watchRoot({ "sub/x.txt": "" });
    const w = await startWatching(sandbox, {});
    try {
      await writeFile(path.join(root, "sub", "y.txt"), "");
      await writeFile(path.join(root, "top.txt"), "");
      await w.waitFor((e) => changes(e).includes("created top.txt"));
      await w.settle();
      assert.ok(!changes(w.events).some((c) => c.includes("y.txt")), JSON.stringify(w.events));
    } finally {
      await w.stop();
    }
  });

  it("sends a snapshot of every matching entry, then a marker, then changes; include, exclude and hidden apply", async () => {
    const { root, sandbox } = await watchRoot({
      "a.ts": "1",
      "b.js": "2",
      "src/c.ts": "3",
      ".hidden.ts": "",
      "vendor/d.ts": "",
    });
    const w = await startWatching(sandbox, {
      recursive: true,
      initialSnapshot: true,
      include: ["*.ts"],
      exclude: ["vendor"],
    });
    try {
      const marker = w.events.findIndex((e) => e.type === "snapshot-done");
      assert.deepEqual(changes(w.events.slice(0, marker)).sort(), ["created a.ts", "created src/c.ts"]);
      await writeFile(path.join(root, "e.ts"), "");
      await writeFile(path.join(root, "f.js"), "");
      await writeFile(path.join(root, "vendor", "g.ts"), "");
      await w.waitFor((e) => changes(e).includes("created e.ts"));
      await w.settle();
      assert.deepEqual(changes(w.events.slice(marker + 1)), ["created e.ts"]);
    } finally {
      await w.stop();
    }
  });

  it("sends overflow to a client that falls behind, with bounded memory, then carries on", async () => {
    const { root, sandbox } = await watchRoot();
    const w = await startWatching(sandbox, {}, { watchQueueEvents: 5 }, { slow: true });
    try {
      await w.waitFor((e) => e.some((x) => x.type === "ready"));
      for (let i = 0; i < 40; i++) await writeFile(path.join(root, `f${i}.txt`), "");
      await w.waitFor((e) => e.some((x) => x.type === "overflow"), 10_000);
    } finally {
      await w.stop();
    }
  });

  it("ends cleanly when the watched folder is removed", async () => {
    const { root, sandbox } = await watchRoot({ "w/a.txt": "" });
    const w = await startWatching(sandbox, { path: "w", recursive: true });
    await rm(path.join(root, "w"), { recursive: true });
    await w.waitFor(() => w.ended !== undefined);
    assert.equal(w.ended, "done");
    assert.ok(changes(w.events).includes("deleted w/a.txt"), JSON.stringify(w.events));
  });

  it("refuses more folders than max_watched_folders_per_stream with TOO_LARGE", async () => {
    const { sandbox } = await watchRoot({ "a/x": "", "b/x": "", "c/x": "", "d/x": "" });
    const w = await startWatching(sandbox, { recursive: true }, { maxWatchedFoldersPerStream: 2 }, { slow: true });
    await w.waitFor(() => w.ended !== undefined);
    assert.ok(w.ended instanceof Error && /more than 2 folders/.test(w.ended.message), String(w.ended));
  });

  it("never follows a link to outside the roots", async () => {
    const outside = await tempDir("outside");
    await writeTree(outside, { "o.txt": "" });
    const { root, sandbox } = await watchRoot();
    await symlink(outside, path.join(root, "link"));
    const w = await startWatching(sandbox, { recursive: true });
    try {
      await writeFile(path.join(outside, "new-outside.txt"), "");
      await writeFile(path.join(root, "inside.txt"), "");
      await w.waitFor((e) => changes(e).includes("created inside.txt"));
      await w.settle();
      assert.ok(!changes(w.events).some((c) => c.includes("outside")), JSON.stringify(w.events));
    } finally {
      await w.stop();
    }
  });
});
