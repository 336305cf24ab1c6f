import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { LiveCatalog } from "../../src/skills/catalog/live-catalog.js";
import { skillMd, tempDir } from "./skill-fixtures.js";

/** maxTouches bounds the stream of changes: far more than a reload after maxWaitMs needs. */
const maxTouches = 200_000;

describe("skill hot reload under constant change", () => {
  // The debounce (10 minutes) never ends while the root keeps changing, so only the maximum wait
  // can reload the catalog: the new skill appearing while the changes go on proves it does. The
  // timeout is a hang guard.
  it("reloads within the maximum wait while a file under the root keeps changing", { timeout: 300_000 }, async () => {
    const root = await tempDir("busy");
    await mkdir(join(root, "busy"));
    const catalog = new LiveCatalog({
      roots: [{ path: root, namespace: "ns" }],
      maxSkillFileBytes: 65536,
      maxActivatedBytes: 65536,
      debounceMs: 600_000,
      maxWaitMs: 1000,
    });
    try {
      await catalog.ready;
      await mkdir(join(root, "fresh"));
      await writeFile(join(root, "fresh", "SKILL.md"), skillMd("fresh", "Appears while the root is busy."));
      let touches = 0;
      const seen = (): boolean => catalog.index.skills().some((s) => s.name === "ns/fresh");
      for (; touches < maxTouches && !seen(); touches++)
        await writeFile(join(root, "busy", "notes.txt"), String(touches));
      assert.ok(seen(), `the new skill did not appear during ${touches} changes`);
    } finally {
      await catalog.close();
    }
  });
});
