/**
 * skills-cold-scan times how long the skill catalog takes to scan a skill root of 1,000 skill
 * folders from a fresh process: find every SKILL.md, read and parse it, list its resource slots.
 *
 * Run: node --import tsx bench/skills-cold-scan.ts [FOLDERS]   (default 1000)
 *
 * "Cold" means a fresh process (no warmed-up JIT, empty catalog); the files were just written,
 * so the OS page cache is warm. Dropping the page cache needs root and would disturb whatever
 * else runs on the machine, so it is not done here.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SkillCatalogIndex } from "../src/skills/catalog/skill-catalog.js";
import { openResults } from "./lib/results.mjs";

const folders = Number(process.argv[2] ?? 1000);

async function generate(root: string): Promise<void> {
  for (let i = 0; i < folders; i++) {
    // Ten collections of skills, like a checkout of several public repositories.
    const folder = join(root, `collection-${i % 10}`, `skill-${String(i).padStart(4, "0")}`);
    await mkdir(join(folder, "scripts"), { recursive: true });
    await mkdir(join(folder, "references"), { recursive: true });
    const body = `# Skill ${i}\n\n${"Follow these instructions carefully.\n".repeat(40)}`;
    await writeFile(
      join(folder, "SKILL.md"),
      [
        "---",
        `name: skill-${String(i).padStart(4, "0")}`,
        `description: Benchmark skill ${i}. Use when measuring how fast the catalog scans a large skill root.`,
        "license: Apache-2.0",
        "allowed-tools: Read, Grep, Bash(git:*)",
        "metadata:",
        "  author: bench",
        `  tags: [bench, n${i % 7}]`,
        "steps:",
        "  - Read the references",
        "  - Run the script",
        "---",
        body,
      ].join("\n"),
    );
    await writeFile(join(folder, "scripts", "run.sh"), "#!/bin/sh\necho run\n");
    await writeFile(join(folder, "references", "guide.md"), "# Guide\n");
  }
}

const root = await mkdtemp(join(tmpdir(), "toolhost-bench-skills-"));
try {
  await generate(root);
  const index = new SkillCatalogIndex({ roots: [{ path: root, namespace: "bench" }], maxSkillFileBytes: 1024 * 1024 });
  const start = performance.now();
  await index.reload();
  const cold = performance.now() - start;
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await index.reload();
    warm.push(performance.now() - t);
  }
  warm.sort((a, b) => a - b);
  const loaded = index.skills().length;
  const errors = index.errors().length;
  if (loaded !== folders || errors !== 0) {
    throw new Error(`expected ${folders} skills and no errors, got ${loaded} and ${errors}`);
  }
  console.log(
    `skills cold scan: ${folders} folders, ${loaded} skills loaded in ${cold.toFixed(0)} ms (cold process); rescan median ${warm[2]!.toFixed(0)} ms`,
  );
  openResults("skills-cold-scan", { command: `node --import tsx bench/skills-cold-scan.ts ${folders}` }).row(
    "skills-cold-scan",
    {
      "skill folders": folders,
      "first scan (fresh process)": `${cold.toFixed(0)} ms`,
      "rescan (median of 5)": `${warm[2]!.toFixed(0)} ms`,
    },
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
