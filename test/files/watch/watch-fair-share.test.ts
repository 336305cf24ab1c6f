import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { defaultLimits } from "../../../src/config/config.js";
import { WatchHub } from "../../../src/files/watch/watch-hub.js";
import { watchFiles } from "../../../src/files/watch/watch-files.js";
import { startWatching, watchRoot, wideTree } from "./watch-fixture.js";

describe("watchFiles: one caller's watches and another's work", () => {
  it("sets a small watch up for one caller while another's watches of a large tree are still setting up", async () => {
    const { root, sandbox } = await watchRoot({ "small/a.txt": "" });
    await wideTree(path.join(root, "big"), 400);
    const hub = new WatchHub(defaultLimits);
    const order: string[] = [];
    const big = [1, 2, 3, 4].map(async (n) => {
      const w = await startWatching(sandbox, { path: "big", recursive: true }, {}, { hub, caller: "flood" });
      order.push(`flood-${n}`);
      return w;
    });
    // Started after the flood's four: its two slices come round between theirs.
    const small = await startWatching(sandbox, { path: "small", recursive: true }, {}, { hub, caller: "innocent" });
    order.push("innocent");
    // A plain filesystem call made meanwhile is not held up either (libuv's pool is not filled).
    await stat(path.join(root, "small", "a.txt"));
    order.push("stat");
    const floods = await Promise.all(big);
    assert.deepEqual(order.slice(0, 2), ["innocent", "stat"], order.join(", "));
    assert.deepEqual(hub.budget.used("flood"), { streams: 4, folders: 4 * 411, entries: 4 * (400 + 410) });
    await Promise.all([small, ...floods].map((w) => w.stop()));
    assert.deepEqual(hub.budget.used(), { streams: 0, folders: 0, entries: 0 });
  });

  it("ends promptly when its signal aborts during the set-up, giving back every folder, entry and turn", async () => {
    const { root, sandbox } = await watchRoot();
    await wideTree(root, 300);
    const hub = new WatchHub(defaultLimits);
    const controller = new AbortController();
    const stream = watchFiles(sandbox, { path: "", recursive: true }, hub, "caller", controller.signal);
    const first = stream.next();
    // Abort once part of the tree is watched.
    while (hub.budget.used().folders < 20) await new Promise((r) => setImmediate(r));
    controller.abort();
    await assert.rejects(first, (err: Error) => err.name === "AbortError");
    assert.deepEqual(await stream.next(), { done: true, value: undefined });
    assert.deepEqual(hub.budget.used(), { streams: 0, folders: 0, entries: 0 });
    // Nothing of the set-up carries on behind the stream's back.
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(hub.budget.used(), { streams: 0, folders: 0, entries: 0 });
    assert.equal(hub.turns.waiting, 0);
  });

  it("ends promptly when its signal aborts while it waits for changes", async () => {
    const { sandbox } = await watchRoot({ "a/b.txt": "" });
    const hub = new WatchHub(defaultLimits);
    const controller = new AbortController();
    const stream = watchFiles(sandbox, { path: "", recursive: true }, hub, "caller", controller.signal);
    assert.deepEqual((await stream.next()).value, { type: "ready" });
    assert.deepEqual(hub.budget.used(), { streams: 1, folders: 2, entries: 2 });
    const waiting = stream.next();
    controller.abort(new Error("token revoked"));
    await assert.rejects(waiting, /token revoked|aborted/);
    assert.deepEqual(hub.budget.used(), { streams: 0, folders: 0, entries: 0 });
  });
});
