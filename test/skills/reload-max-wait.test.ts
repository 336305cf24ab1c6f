import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { LiveCatalog } from "../../src/skills/catalog/live-catalog.js";
import { skillMd, tempDir } from "./skill-fixtures.js";

describe("skill hot reload under constant change", () => {
  it("reloads within the maximum wait while a file under the root changes every 50 ms", async () => {
    const root = await tempDir("busy");
    await mkdir(join(root, "busy"));
    const catalog = new LiveCatalog({ roots: [{ path: root, namespace: "ns" }], maxSkillFileBytes: 65536, maxActivatedBytes: 65536, debounceMs: 150, maxWaitMs: 1000 });
    try {
      await catalog.ready;
      // 100 touches, 50 ms apart: about 5 s of changes that never leave 150 ms of quiet.
      let touches = 0;
      let seenAfter: number | undefined;
      const toucher = (async () => {
        for (; touches < 100; touches++) {
          await writeFile(join(root, "busy", "notes.txt"), String(touches));
          if (touches === 5) {
            await mkdir(join(root, "fresh"));
            await writeFile(join(root, "fresh", "SKILL.md"), skillMd("fresh", "Appears while the root is busy."));
          }
          if (seenAfter === undefined && catalog.index.skills().some((s) => s.name === "ns/fresh")) {
            seenAfter = touches;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await toucher;
      // Seen while the touching went on: within the max wait (1000 ms = 20 touches) plus a scan,
      // not only once the root went quiet. Counted in touches, not timed.
      assert.ok(seenAfter !== undefined, "the new skill appeared only after the changes stopped");
      assert.ok(seenAfter - 5 <= 60, `seen ${seenAfter - 5} touches after it was written`);
      console.log(`# new skill under 50 ms churn: seen ${seenAfter - 5} touches (~${(seenAfter - 5) * 50} ms) after it was written`);
    } finally {
      await catalog.close();
    }
  });
});
