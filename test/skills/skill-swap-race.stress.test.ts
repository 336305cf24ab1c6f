import assert from "node:assert/strict";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { scanSkillRoots } from "../../src/skills/load/scan-skill-roots.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { fifoTripwire } from "../support/fifo-tripwire.js";
import { create } from "@bufbuild/protobuf";
import { createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import {
  ListSkillResourcesRequestSchema,
  ReadSkillResourceRequestSchema,
  SkillCatalog,
} from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { defaultLimits } from "../../src/config/config.js";
import { createSkillCatalogService } from "../../src/service/skill-catalog/skill-catalog-service.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

// The review's attack on the skills side: a folder inside a skill root is exchanged, over and
// over (renameat2 RENAME_EXCHANGE), with a symlink to a folder outside holding files of the same
// names and a marker. Nothing from outside may come back: no content, no names, no skills. Each
// race is bounded by the calls it makes; the loop's own time limit only guards against a test
// that never stops it.
const calls = 300;
const scans = 100;

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("skill resources under a symlink-swap race", () => {
  // The service's own handlers, called in process with the watcher off: under a swap loop the
  // watcher's event flood starves every call (a separate finding), which would hide this one.
  it("ReadSkillResource and ListSkillResources serve nothing from outside the skill folder", async () => {
    const base = await tempDir("slot-race");
    const root = join(base, "skills");
    const outside = join(base, "outside");
    await writeFiles(root, {
      "alpha/SKILL.md": skillMd("alpha", "A skill whose slot is raced."),
      "alpha/scripts/run.sh": "echo inside\n",
    });
    await writeFiles(outside, { "run.sh": "OUTSIDE SECRET\n", "outside-marker.txt": "OUTSIDE SECRET\n" });
    await symlink(outside, join(root, "alpha", "scripts-out"));
    const service = createSkillCatalogService({
      skillRoots: [{ path: root, namespace: "ns" }],
      limits: defaultLimits,
      watch: false,
    });
    await service.ready;
    const context: HandlerContext = createHandlerContext({
      service: SkillCatalog,
      method: SkillCatalog.method.readSkillResource,
      protocolName: "test",
      requestMethod: "POST",
      url: "/",
    });
    const read = () =>
      service.readSkillResource(
        create(ReadSkillResourceRequestSchema, { name: "ns/alpha", slot: "scripts", path: "run.sh" }),
        context,
      ) as AsyncIterable<{ part: { case: string; value: unknown } }>;
    const loop = await startExchangeLoop(join(root, "alpha", "scripts"), join(root, "alpha", "scripts-out"), 3600);
    const texts: string[] = [];
    const listed: string[] = [];
    let swaps = 0;
    try {
      for (let i = 0; i < calls; i++) {
        const parts = await collect(read()).catch(() => []);
        texts.push(parts.map((p) => (p.part.case === "text" ? String(p.part.value) : "")).join(""));
        const listing = await (
          service.listSkillResources(
            create(ListSkillResourcesRequestSchema, { name: "ns/alpha" }),
            context,
          ) as Promise<{ resources: { path: string }[] }>
        ).catch(() => undefined);
        listed.push(...(listing?.resources.map((r) => r.path) ?? []));
      }
    } finally {
      swaps = await loop.stop();
      await service.close();
    }
    assert.ok(swaps > 0, "the loop swapped nothing: the test raced nothing");
    assert.ok(texts.includes("echo inside\n"), "the slot was read at times");
    assert.deepEqual(texts.filter((t) => t.includes("OUTSIDE")).slice(0, 3), [], "outside content came back");
    assert.deepEqual(listed.filter((p) => p !== "run.sh").slice(0, 3), [], "outside names were listed");
  });
});

describe("skill scanning under a symlink-swap race", () => {
  it("never loads, lists or opens a skill from outside the skill root", async () => {
    const base = await tempDir("scan-race");
    const root = join(base, "skills");
    const outside = join(base, "outside");
    await writeFiles(root, { "group/inner/SKILL.md": skillMd("inner", "The skill inside.") });
    await writeFiles(outside, {
      "evil/SKILL.md": skillMd("evil", "A skill from outside the root."),
      "inner/scripts/marker.sh": "x",
    });
    await mkdir(join(outside, "fifo-skill"));
    const wire = await fifoTripwire(join(outside, "fifo-skill", "SKILL.md"));
    await symlink(outside, join(root, "group-out"));
    const loop = await startExchangeLoop(join(root, "group"), join(root, "group-out"), 3600);
    const seen: string[] = [];
    let swaps = 0;
    try {
      for (let i = 0; i < scans; i++) {
        const result = await scanSkillRoots([{ path: root, namespace: "ns" }], { maxSkillFileBytes: 65536 });
        for (const skill of result.skills)
          seen.push(skill.name, ...skill.slots.flatMap((s) => s.files.map((f) => f.path)));
        for (const error of result.errors) seen.push(error.path, error.message);
      }
    } finally {
      swaps = await loop.stop();
    }
    try {
      assert.ok(swaps > 0, "the loop swapped nothing: the test raced nothing");
      assert.ok(seen.includes("ns/inner"), "the inside skill loaded at times");
      assert.deepEqual(
        seen.filter((s) => /evil|marker|fifo-skill/.test(s)).slice(0, 5),
        [],
        "something from outside came back",
      );
      assert.equal(wire.tripped(), false, "an outside SKILL.md (a FIFO) was opened");
    } finally {
      await wire.close();
    }
  });
});
