// Stress tier (issue 27, finding 6): one caller opens its maximum of recursive WatchFiles on a
// tree of 3,000 folders with the default limits, beside an innocent caller whose every call must
// complete. Bounded by work: the flood's nine watches settle, the innocent loop runs at most
// 5,000 rounds. The deadlines are hang guards only; the latency itself is bench/watch-fair-share.ts's.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { WatchEventType } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { defaultLimits } from "../../src/config/config.js";
import { wideTree } from "../files/watch/watch-fixture.js";
import { openWatch, reasonOf, startWatchCallers } from "./watch-callers.js";

const folders = Number(process.env["WATCH_STRESS_FOLDERS"] ?? 3000);
const hangGuardMs = 10_000;

describe("WatchFiles fair share under a flood of recursive watches (stress)", () => {
  it("serves every call of an innocent caller while another opens its maximum of recursive watches on a large tree", async () => {
    const s = await startWatchCallers();
    try {
      await wideTree(path.join(s.root, "tree"), folders);
      await mkdir(path.join(s.root, "mine"));
      const perWatch = folders + 11;
      const fit = Math.floor(defaultLimits.maxWatchedFoldersPerCaller / perWatch);
      assert.ok(
        fit < defaultLimits.maxWatchesPerCaller,
        "the tree must be large enough for the per-caller folder bound to bite",
      );

      const flood = Array.from({ length: defaultLimits.maxWatchesPerCaller }, () =>
        openWatch(s.flood, { path: "tree", recursive: true }),
      );
      const refused = openWatch(s.flood, { path: "tree", recursive: true });
      const settled = Promise.all(
        flood.map((w) =>
          Promise.race([
            w.ready.then(
              () => "ready",
              () => "ended",
            ),
            w.ended.then(() => "ended"),
          ]),
        ),
      );
      let floodSettled = false;
      void settled.then(() => (floodSettled = true));

      const mine = openWatch(s.innocent, { path: "mine" });
      await mine.ready;
      const options = { timeoutMs: hangGuardMs };
      let rounds = 0;
      let duringFlood = 0;
      for (; rounds < 5000 && (!floodSettled || rounds < 3); rounds++) {
        if (!floodSettled) duringFlood++;
        await s.innocent.statFile({ path: "tree" }, options);
        await s.innocent.listDirectory({ path: "mine" }, options);
        await s.innocent.writeFile(
          { path: `mine/r${rounds % 10}.txt`, content: { case: "text", value: String(rounds) } },
          options,
        );
        const read = s.innocent.readFile({ path: `mine/r${rounds % 10}.txt` }, options);
        for await (const _ of read) void _;
      }
      const outcomes = await settled;
      // The innocent caller's watch saw its own writes during the flood.
      for (let i = 0; i < 500 && !mine.events.some((e) => e.path === "mine/r0.txt"); i++)
        await new Promise((r) => setTimeout(r, 10));
      const seen = mine.events.map((e) => `${WatchEventType[e.type]} ${e.path}`);
      assert.ok(seen.includes("CREATED mine/r0.txt"), `${seen.length} events: ${seen.slice(0, 5).join(", ")}`);

      assert.equal(outcomes.filter((o) => o === "ready").length, fit, outcomes.join(", "));
      for (const w of flood.filter((_, i) => outcomes[i] === "ended")) {
        const err = await w.ended;
        assert.equal(err?.code, Code.ResourceExhausted);
        assert.equal(reasonOf(err), "QUOTA_EXCEEDED");
        assert.match(err?.rawMessage ?? "", /limits\.max_watched_folders_per_caller/);
      }
      const ninth = await refused.ended;
      assert.equal(reasonOf(ninth), "QUOTA_EXCEEDED");
      assert.match(ninth?.rawMessage ?? "", /limits\.max_watches_per_caller/);
      assert.ok(
        duringFlood >= 1,
        `the innocent caller made ${rounds} rounds, none while the flood set up: nothing was raced`,
      );
      for (const w of [...flood, mine]) w.cancel();
      await Promise.all([...flood, mine].map((w) => w.ended));
    } finally {
      await s.close();
    }
  });
});
