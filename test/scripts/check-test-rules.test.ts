import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { checkTestRules, defaultTierFiles } from "../../scripts/check-test-rules.js";
import { findViolations, type TestRule } from "../../scripts/test-rules.js";

const rules = (source: string): [TestRule, number][] =>
  findViolations("x.test.ts", source).map((f) => [f.rule, f.line]);

describe("the default tier's rules (scripts/test-rules.ts)", () => {
  it("flags fixed sleeps, however the timer is reached", () => {
    const source = [
      'import { setTimeout as sleep, scheduler } from "node:timers/promises";',
      'import * as timers from "node:timers/promises";',
      "await sleep(300);",
      "await new Promise((r) => setTimeout(r, 50));",
      "setInterval(() => undefined, 5);",
      "await scheduler.wait(10);",
      "await timers.setTimeout(10);",
      "globalThis.setTimeout(() => undefined, 1);",
    ].join("\n");
    assert.deepEqual(rules(source), [
      ["sleep", 3],
      ["sleep", 4],
      ["sleep", 5],
      ["sleep", 6],
      ["sleep", 7],
      ["sleep", 8],
    ]);
  });

  it("flags loops bounded by wall time, directly or through a variable", () => {
    const source = [
      "const end = Date.now() + 2000;",
      "while (Date.now() < end) work();",
      "for (let i = 0; i < 100 && performance.now() - t0 < 5; i++) work();",
      "do work(); while (Date.now() < end);",
      "for (let i = 0; i < 100; i++) work();",
    ].join("\n");
    assert.deepEqual(rules(source), [
      ["time-loop", 2],
      ["time-loop", 3],
      ["time-loop", 4],
    ]);
  });

  it("flags assertions on elapsed time, following the values derived from a clock and the functions returning them", () => {
    const source = [
      "const started = performance.now();",
      "const ms = Math.round(performance.now() - started);",
      "const time = () => { const s = Date.now(); return Date.now() - s; };",
      "assert.ok(ms < 1000);",
      "assert.ok(time() < 5);",
      "assert.ok(Date.now() - started < 2_000, `took ${ms} ms`);",
      "assert.ok(done, `took ${ms} ms`);", // only the message mentions it
      "const file = `hc-${Date.now()}.yaml`;", // a name made unique by the time
      "assert.equal(load(file), 1);",
    ].join("\n");
    assert.deepEqual(rules(source), [
      ["elapsed-assert", 4],
      ["elapsed-assert", 5],
      ["elapsed-assert", 6],
    ]);
  });

  it("flags assertions on heap size or memory use", () => {
    const source = [
      "const before = process.memoryUsage().heapUsed;",
      "const rss = await rssBytes(pid);",
      "assert.ok(process.memoryUsage().heapUsed - before < 1024);",
      "assert.ok(rss < 64 * MiB, `rss ${rss}`);",
      "assert.equal(count, 3, `heap ${before}`);",
    ].join("\n");
    assert.deepEqual(rules(source), [
      ["heap-assert", 3],
      ["heap-assert", 4],
    ]);
  });

  it("does not read comments and strings as code", () => {
    assert.deepEqual(rules('// await sleep(300)\nconst s = "setTimeout(r, 5)";\nassert.ok(true);'), []);
  });
});

describe("check-test-rules", () => {
  it("passes allowed findings, fails others and allowances larger than the findings, and leaves the stress tier alone", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "toolhost-test-rules-"));
    await mkdir(path.join(root, "test", "a"), { recursive: true });
    await mkdir(path.join(root, "test", "fixtures"), { recursive: true });
    await mkdir(path.join(root, "features"), { recursive: true });
    await writeFile(path.join(root, "test", "a", "one.test.ts"), "await new Promise((r) => setTimeout(r, 5));\n");
    await writeFile(
      path.join(root, "test", "a", "two.test.ts"),
      "const t = Date.now();\nwhile (Date.now() - t < 5) work();\n",
    );
    await writeFile(
      path.join(root, "test", "a", "race.stress.test.ts"),
      "const t = Date.now();\nwhile (Date.now() - t < 5) work();\n",
    );
    await writeFile(path.join(root, "test", "fixtures", "f.ts"), "await new Promise((r) => setTimeout(r, 5));\n");
    await writeFile(path.join(root, "features", "steps.ts"), "assert.ok(true);\n");
    assert.deepEqual(defaultTierFiles(root), ["features/steps.ts", "test/a/one.test.ts", "test/a/two.test.ts"]);

    assert.deepEqual(
      checkTestRules(root, {
        "test/a/one.test.ts": { sleep: 1, why: "a hang guard" },
        "test/a/two.test.ts": { "time-loop": 1, why: "phase 2" },
      }),
      [],
    );
    const problems = checkTestRules(root, {
      "test/a/one.test.ts": { sleep: 2, why: "x" },
      "test/a/gone.test.ts": { sleep: 1, why: "x" },
    });
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.match(
      problems[0]!,
      /^test\/a\/one\.test\.ts: scripts\/test-rules-allowed\.json allows 2 sleep finding\(s\) and the file has 1: lower the allowance/,
    );
    assert.match(
      problems[1]!,
      /^test\/a\/two\.test\.ts: 1 time-loop finding\(s\), 0 allowed: bound the loop by work done/,
    );
    assert.match(problems[1]!, /test\/a\/two\.test\.ts:2: while \(Date\.now\(\) - t < 5\) work\(\);/);
    assert.match(
      problems[2]!,
      /^test\/a\/gone\.test\.ts: listed in scripts\/test-rules-allowed\.json but not a default-tier file/,
    );
  });
});
