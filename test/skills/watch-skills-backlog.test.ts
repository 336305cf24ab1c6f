import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext } from "@connectrpc/connect";
import { SkillCatalog, WatchSkillsRequestSchema } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { defaultLimits } from "../../src/config/config.js";
import { watchSkillsHandler } from "../../src/service/skill-catalog/watch-skills.js";
import { LiveCatalog } from "../../src/skills/catalog/live-catalog.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

describe("WatchSkills backlog", () => {
  it("ends a watcher that stops reading once more than max_watch_pending_events are pending, read or not", async () => {
    const root = await tempDir("watch-backlog");
    const catalog = new LiveCatalog({
      roots: [{ path: root, namespace: "ns" }],
      maxSkillFileBytes: 65536,
      maxActivatedBytes: 65536,
      watch: false,
    });
    const limits = { ...defaultLimits, maxWatchPendingEvents: 5 };
    const context = createHandlerContext({
      service: SkillCatalog,
      method: SkillCatalog.method.watchSkills,
      protocolName: "grpc",
      requestMethod: "POST",
      url: "/toolhost.skills.v1.SkillCatalog/WatchSkills",
      requestHeader: new Headers(),
    });
    await catalog.ready;
    const stream = watchSkillsHandler({ catalog, limits })(create(WatchSkillsRequestSchema, {}), context)[
      Symbol.asyncIterator
    ]();
    // The transport pulls the first event and then, its client not reading, pulls no more.
    const first = stream.next();
    await new Promise((r) => setImmediate(r));
    await writeFiles(root, { "s0/SKILL.md": skillMd("s0", "d") });
    await catalog.index.reload();
    assert.equal((await first).value?.name, "ns/s0");
    let batches = 0;
    for (let b = 1; b <= 10 && !context.signal.aborted; b++) {
      const files: Record<string, string> = {};
      for (let i = 0; i < 4; i++) files[`s${b}-${i}/SKILL.md`] = skillMd(`s${b}-${i}`, "d");
      await writeFiles(root, files);
      await catalog.index.reload();
      batches = b;
    }
    // 4 pending after batch 1, 8 after batch 2 (> 5): batch 3's arrival ends the call.
    assert.equal(batches, 3);
    const reason = context.signal.reason as unknown;
    assert.ok(reason instanceof ConnectError, String(reason));
    assert.equal(reason.code, Code.ResourceExhausted);
    assert.equal(
      reason.rawMessage,
      "WatchSkills fell more than 5 events behind (limits.max_watch_pending_events), too large a backlog to keep: read the stream faster, then re-list with ListSkills and watch again.",
    );
    // A read after that gets the same error, not the dropped backlog.
    await assert.rejects(stream.next(), { reason: "TOO_LARGE" });
    await catalog.close();
  });
});
