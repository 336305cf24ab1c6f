// WatchFiles bounds per caller over gRPC: two bearer-token callers on one server; the refusals'
// exact code, reason and message, and the other caller served meanwhile.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { WatchEventType } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { snapshot } from "../files/write-fixtures.js";
import { wideTree } from "../files/watch/watch-fixture.js";
import { openWatch, reasonOf, startWatchCallers, type WatchCallers } from "./watch-callers.js";

describe("WatchFiles bounds per caller, over gRPC", () => {
  let s: WatchCallers;

  before(async () => {
    // A tree of 40 + 11 folders: one watch of it fits max_watched_folders_per_caller (80), two do not.
    s = await startWatchCallers({ maxWatchesPerCaller: 2, maxWatchedFoldersPerCaller: 80 });
    await wideTree(path.join(s.root, "tree"), 40);
    await writeFile(path.join(s.root, "small.txt"), "");
  });

  after(async () => {
    await s?.close();
  });

  it("ends a caller's watch that would take it past max_watched_folders_per_caller with QUOTA_EXCEEDED, sends nothing before, and changes nothing", async () => {
    const before = await snapshot(s.root);
    const first = openWatch(s.flood, { path: "tree", recursive: true });
    await first.ready;
    const second = openWatch(s.flood, { path: "./tree", recursive: true });
    const err = await second.ended;
    assert.equal(err?.code, Code.ResourceExhausted);
    assert.equal(reasonOf(err), "QUOTA_EXCEEDED");
    assert.equal(
      err?.rawMessage,
      `Watching ./tree would take "flood" past 80 folders watched across its watches (limits.max_watched_folders_per_caller); close one of its watches, watch a smaller folder, or exclude some.`,
    );
    assert.deepEqual(second.events, []);
    // The other caller's share is its own.
    const innocent = openWatch(s.innocent, { path: "tree", recursive: true });
    await innocent.ready;
    first.cancel();
    innocent.cancel();
    await Promise.all([first.ended, innocent.ended]);
    assert.deepEqual(await snapshot(s.root), before);
  });

  it("refuses a caller's watch past max_watches_per_caller with QUOTA_EXCEEDED while another caller still watches and is told of changes", async () => {
    const a = openWatch(s.flood, { path: "" });
    const b = openWatch(s.flood, { path: "tree" });
    await Promise.all([a.ready, b.ready]);
    const third = openWatch(s.flood, { path: "small.txt" });
    const err = await third.ended;
    assert.equal(err?.code, Code.ResourceExhausted);
    assert.equal(reasonOf(err), "QUOTA_EXCEEDED");
    assert.equal(
      err?.rawMessage,
      `"flood" already has 2 watches open, its maximum (limits.max_watches_per_caller); close one of its watches or retry later.`,
    );
    const innocent = openWatch(s.innocent, { path: "small.txt" });
    await innocent.ready;
    await s.innocent.writeFile({ path: "small.txt", content: { case: "text", value: "changed" } });
    for (let i = 0; i < 500 && !innocent.events.some((e) => e.type === WatchEventType.MODIFIED); i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(
      innocent.events.map((e) => [WatchEventType[e.type], e.path, e.size]),
      [
        ["READY", "", 0n],
        ["MODIFIED", "small.txt", 7n],
      ],
    );
    // A slot comes back when a watch ends.
    a.cancel();
    await a.ended;
    let again = openWatch(s.flood, { path: "small.txt" });
    for (
      let i = 0;
      i < 50 && reasonOf(await Promise.race([again.ended, again.ready.then(() => undefined)])) === "QUOTA_EXCEEDED";
      i++
    ) {
      await new Promise((r) => setTimeout(r, 20)); // the server sees the cancel a moment after the client
      again = openWatch(s.flood, { path: "small.txt" });
    }
    await again.ready;
    for (const w of [b, again, innocent]) w.cancel();
    await Promise.all([b.ended, again.ended, innocent.ended]);
  });
});
